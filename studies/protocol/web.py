"""Web addresses, as a field answer or an imported document gives them. Pure: no Django."""

from __future__ import annotations

from urllib.parse import urlsplit

SCHEMES = ("http", "https")


def web_address(text: str) -> str | None:
    """``text`` as a web address: an http(s) URL with a host, surrounding whitespace stripped.

    None when it is not one: another scheme, no host, whitespace inside (a URL never holds any:
    two addresses pasted into one box, or a title run into the address, are refused), or text
    that does not parse as a URL (an unclosed ``[`` of an IPv6 host)."""
    url = text.strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme not in SCHEMES or not parts.netloc or any(c.isspace() for c in url):
        return None
    return url
