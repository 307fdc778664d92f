"""An automated WCAG audit of the page a browser test is on: axe-core (vendored in ``vendor/axe.min.js``,
see its README) injected into the page and run against the WCAG 2.0, 2.1 and 2.2 A and AA rules.

``serious_violations(page)`` returns the violations of impact serious or critical; ``report`` formats them
for an assertion's message: the rule, how many nodes, its help and where (CSS selectors).
"""

from pathlib import Path

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
SERIOUS = {"serious", "critical"}

_source: str | None = None


def axe_source() -> str:
    global _source
    if _source is None:
        _source = AXE.read_text(encoding="utf-8")
    return _source


def audit(page, *, tags=WCAG_TAGS) -> list[dict]:
    """Every violation axe finds on the page as it stands (the whole document), as axe reports them."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe_source())
    return page.evaluate(
        """async (tags) => {
            const result = await axe.run(document, {runOnly: {type: "tag", values: tags}, resultTypes: ["violations"]});
            return result.violations.map(v => ({
                id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
                nodes: v.nodes.map(n => ({target: n.target.map(String), summary: n.failureSummary || "",
                                          html: n.html})),
            }));
        }""",
        tags,
    )


def serious_violations(page) -> list[dict]:
    """The violations of impact serious or critical on the page."""
    return [v for v in audit(page) if v["impact"] in SERIOUS]


def report(violations: list[dict], where: str = "") -> str:
    """Readable lines for an assertion's message: one paragraph per rule, up to five places each."""
    lines = [f"{len(violations)} serious or critical accessibility violation(s){' on ' + where if where else ''}:"]
    for v in violations:
        lines.append(f"- {v['id']} ({v['impact']}, {len(v['nodes'])} node(s)): {v['help']} <{v['helpUrl']}>")
        for node in v["nodes"][:5]:
            summary = " ".join(node["summary"].split())[:300]
            lines.append(f"    at {' > '.join(node['target'])}: {summary}")
            lines.append(f"       {node['html'][:200]}")
    return "\n".join(lines)


def assert_no_serious_violations(page, where: str = "") -> None:
    found = serious_violations(page)
    assert not found, report(found, where or page.url)
