"""The researcher follows a study live: on the study page, without a reload, the figures of the
pool change while an annotator, in another browser, takes an item and submits it."""

import pytest
from django.urls import reverse

from studies.models import ItemQuota
from tests.factories import PASSWORD, add_items, preset_study

from .helpers import item_ready, start_annotating

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

POLL = 15_000  # ms: the fragment is polled every 10 s


def test_the_study_page_follows_an_annotator_without_a_reload(page, browser, live_server):
    study, pool = preset_study("culturalframes-prompt-filter")
    add_items(study, 3, prompt="Children flying kites on a rooftop during Makar Sankranti")
    wanted = sum(ItemQuota.objects.filter(pool=pool).values_list("wanted", flat=True))

    page.goto(f"{live_server.url}/login/?next={reverse('analysis:study-dashboard', args=[study.pk])}")
    page.get_by_label("Username").fill(study.owner.username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    row = page.locator(f"#progress-{pool.pk}")
    done = row.locator("[data-figure=done]")
    done.wait_for()
    assert done.inner_text().startswith(f"0 / {wanted}")
    assert row.locator("[data-figure=active]").inner_text() == "0"
    page.evaluate("window.__samePage = true")

    annotator_context = browser.new_context()
    try:
        annotator = annotator_context.new_page()
        start_annotating(annotator, live_server, pool)
        item_ready(annotator, "Prompt 1 of 3")
        # the lease shows as an annotator active now, at the next poll
        page.wait_for_function(
            f"document.querySelector('#progress-{pool.pk} [data-figure=active]').textContent.trim() === '1'",
            timeout=POLL,
        )
        annotator.keyboard.press("1")
        annotator.keyboard.press("Control+Enter")
        item_ready(annotator, "Prompt 2 of 3")
    finally:
        annotator_context.close()

    page.wait_for_function(
        f"document.querySelector('#progress-{pool.pk} [data-figure=done]').textContent.startsWith('1 / {wanted}')",
        timeout=POLL,
    )
    assert row.locator("[data-figure=last-hour]").inner_text() == "1"
    assert page.get_by_role("img", name="Progress over time in India").is_visible()
    assert page.evaluate("window.__samePage") is True  # the page was never reloaded
