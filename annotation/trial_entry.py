"""A researcher's test entry link (a "trial" in code, so that no name looks like a test to pytest):
the pool's own entry link, with test PROLIFIC_PID, STUDY_ID and SESSION_ID and Tessera's signature
over them (``TRIAL_PARAM``, ``tessera_test``), so that the researcher walks the study from the very
address Prolific sends participants to.

A test entry never becomes an annotator: the entry view, seeing ``TRIAL_PARAM``, checks the signature
(made here with the site's key, for this pool and these ids, at most ``TRIAL_LINK_MAX_AGE`` old) and
sends the browser to the pool's path preview (``annotation.path_preview``), where every step's rule is
the real one and nothing is stored: no Annotator, Session, Assignment or Annotation row, no quota
moved, so the walk counts nowhere (not in quotas, the analysis, the exports, the payouts or Prolific's
places) by construction. The preview lets in only the study's members (a checker, another researcher
or a visitor without a login is refused there), so the signature's job is that nobody forges a test
entry: a link without it is an ordinary entry, checked with Prolific as every other; one whose
signature is altered, expired, of another pool or of other ids is refused and creates nothing.

Prolific's own test study (``recruitment``'s test participants) sends its test participant with the
test study's STUDY_ID: the entry check answers "test" for it (``extensions.EntryVerdict``), and the
entry view sends it to the same walk.
"""

from __future__ import annotations

import secrets

from django.core import signing

from studies.models import CountryPool

from .links import entry_link

TRIAL_PARAM = "tessera_test"
TRIAL_SALT = "tessera.annotation.test-entry"
TRIAL_LINK_MAX_AGE = 7 * 24 * 3600  # seconds a test link stays good
TRIAL_PREFIX = "TEST"  # the test ids start with it (Prolific's ids are 24 hexadecimal digits)
IDS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")


class TrialLinkRefused(Exception):
    """A test link whose signature is missing, altered, expired or not for this pool and these ids."""


def trial_link(pool: CountryPool) -> str:
    """A fresh test entry link of ``pool``: its entry link with test ids and Tessera's signature."""
    params = {name: f"{TRIAL_PREFIX}{secrets.token_hex(10)}" for name in IDS}
    token = signing.dumps({"pool": pool.pk, "ids": [params[n] for n in IDS]}, salt=TRIAL_SALT, compress=True)
    return entry_link(pool, {**params, TRIAL_PARAM: token})


def trial_link_check(pool: CountryPool, params: dict[str, str], token: str) -> None:
    """Nothing when ``token`` is Tessera's signature of this pool's test link with these ids; else
    TrialLinkRefused with the reason."""
    try:
        signed = signing.loads(token, salt=TRIAL_SALT, max_age=TRIAL_LINK_MAX_AGE)
    except signing.SignatureExpired:
        raise TrialLinkRefused("it has expired") from None
    except (signing.BadSignature, ValueError, TypeError):
        raise TrialLinkRefused("its signature is not Tessera's") from None
    if not isinstance(signed, dict) or signed.get("pool") != pool.pk:
        raise TrialLinkRefused("it was made for another pool")
    if signed.get("ids") != [params.get(n, "") for n in IDS]:
        raise TrialLinkRefused("its ids were changed")
