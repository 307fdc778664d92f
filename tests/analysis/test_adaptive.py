"""The adaptive comparison mode (``analysis.adaptive``): a pool's adaptive budget placed, a step at a
time once the balanced design is nearly spent, on the pairs of models whose order is least certain;
quotas and leases as for every item. Set by the researcher on the pool form and the API."""

import math

import pytest
from django.conf import settings as django_settings
from django.db.models import F, Sum
from django.urls import reverse

from analysis.adaptive import Slot, adapt_all, comparisons_adapt, deal, order_uncertainty, pairs_ranked
from analysis.tasks import comparisons_adapt_task
from annotation.models import Assignment
from annotation.services import annotation_submit, assignment_next
from stats.comparisons import ThingScore
from studies.models import CountryPool, ItemQuota, Study
from studies.services import WorkspaceError, pool_update, quotas_for_items, quotas_sync, study_create_from_preset
from tests import factories as f
from tests.annotations import annotate, annotators
from tests.api.conftest import client_of
from tests.helpers import login


def pairwise_pool(owner, *, budget=10, per_item=1, status=Study.Status.OPEN):
    study = study_create_from_preset(owner=owner, preset="culturalframes-pairwise", name="Pairs", status=status)
    return f.make_pool(study, "IN", "India", annotations_per_item=per_item, adaptive_budget=budget)


def pair_items(pool, models, n=1):
    items = [f.make_comparison_item(pool.study, "IN", models=models) for _ in range(n)]
    quotas_for_items(items=items)
    return items


def answered(pool, item, raters, winners):
    """``raters`` each answered ``item`` (winner "1" or "2", the first image shown left), filling its quota."""
    for rater, winner in zip(raters, winners, strict=True):
        annotate(rater, item, answers={"fidelity": {"choice": winner, "order": ["1", "2"], "strength": 2}})
    ItemQuota.objects.filter(item=item, pool=pool).update(done=F("done") + len(raters))


def spent(pool):
    """The base design answered: every slot done."""
    ItemQuota.objects.filter(pool=pool).update(done=F("wanted"), leased=0)


def added_by_item(pool):
    return dict(ItemQuota.objects.filter(pool=pool).values_list("item_id", "added"))


def placed(pool) -> int:
    return ItemQuota.objects.filter(pool=pool).aggregate(n=Sum("added"))["n"] or 0


def assert_quotas_whole(pool):
    for wanted, done, leased, added in ItemQuota.objects.filter(pool=pool).values_list(
        "wanted", "done", "leased", "added"
    ):
        assert done + leased <= wanted and added <= wanted


# --- the rule, through the service ------------------------------------------------------------


def test_the_uncertain_pair_gets_the_slots_and_the_settled_pair_none(owner):
    pool = pairwise_pool(owner, budget=10, per_item=4)
    settled = pair_items(pool, ("flux", "sdxl"), n=2)
    unsure = pair_items(pool, ("sdxl", "dalle-3"), n=2)
    raters = annotators(pool, 4)
    for item in settled:
        answered(pool, item, raters, ["1"] * 4)  # flux always wins
    for item in unsure:
        answered(pool, item, raters, ["1", "2", "1", "2"])  # a coin toss
    assert comparisons_adapt(pool=pool) == 2  # one slot per item per run: the unsure pair's two items
    added = added_by_item(pool)
    assert [added[i.pk] for i in unsure] == [1, 1] and [added[i.pk] for i in settled] == [0, 0]
    assert set(ItemQuota.objects.filter(item__in=unsure).values_list("wanted", flat=True)) == {5}
    assert_quotas_whole(pool)


def test_a_pair_never_compared_gets_slots_beside_the_unsure_one(owner):
    pool = pairwise_pool(owner, budget=50, per_item=4)  # step: max(5, 50 // 10) = 5
    unsure = pair_items(pool, ("sdxl", "dalle-3"))[0]
    never = pair_items(pool, ("flux", "dalle-3"), n=3)
    answered(pool, unsure, annotators(pool, 4), ["1", "2", "1", "2"])
    spent(pool)
    assert comparisons_adapt(pool=pool) == 4  # the step is 5; the pairs' four items one slot each
    added = added_by_item(pool)
    assert added[unsure.pk] == 1 and all(added[i.pk] == 1 for i in never)


def test_before_two_answers_the_slots_are_dealt_evenly_over_the_pairs(owner):
    pool = pairwise_pool(owner, budget=6)
    ab = pair_items(pool, ("a", "b"), n=3)
    bc = pair_items(pool, ("b", "c"), n=3)
    spent(pool)
    assert comparisons_adapt(pool=pool) == 5  # the step: max(5, 6 // 10) capped by the 6 left
    added = added_by_item(pool)
    assert sum(added[i.pk] for i in ab) == 3 and sum(added[i.pk] for i in bc) == 2  # in turn


def test_the_budget_is_never_exceeded_across_runs(owner):
    pool = pairwise_pool(owner, budget=7)
    pair_items(pool, ("a", "b"), n=4)
    pair_items(pool, ("b", "c"), n=4)
    runs = []
    for _ in range(4):
        spent(pool)  # what was added gets answered
        runs.append(comparisons_adapt(pool=pool))
        assert placed(pool) <= 7
        assert_quotas_whole(pool)
    assert runs == [5, 2, 0, 0] and placed(pool) == 7


def test_nothing_is_added_while_the_base_design_has_a_step_of_open_slots(owner):
    pool = pairwise_pool(owner, budget=10)  # step 5
    items = pair_items(pool, ("a", "b"), n=5)
    assert comparisons_adapt(pool=pool) == 0 and placed(pool) == 0  # five open slots: a step
    ItemQuota.objects.filter(item=items[0], pool=pool).update(done=1)
    assert comparisons_adapt(pool=pool) == 5  # four open, fewer than a step: one more on each item
    assert set(added_by_item(pool).values()) == {1}
    assert_quotas_whole(pool)


def test_a_lapsed_lease_counts_as_an_open_slot(owner):
    pool = pairwise_pool(owner, budget=10)  # step 5
    items = pair_items(pool, ("a", "b"), n=6)
    leases = [assignment_next(session=f.make_session(rater)) for rater in annotators(pool, 5)]
    ItemQuota.objects.filter(pool=pool, leased=0).update(done=1)  # the sixth item answered
    Assignment.objects.filter(pk__in=[a.pk for a in leases]).update(expires_at=leases[0].leased_at)
    assert comparisons_adapt(pool=pool) == 0  # five lapsed leases: five slots about to come back
    Assignment.objects.filter(pk__in=[a.pk for a in leases]).update(expires_at=leases[0].expires_at)
    assert comparisons_adapt(pool=pool) == 5  # held leases: nothing open, a step placed
    assert sum(added_by_item(pool)[i.pk] for i in items) == 5
    assert_quotas_whole(pool)


def test_an_added_slot_never_goes_to_the_annotator_who_did_the_item(owner):
    pool = pairwise_pool(owner, budget=5)
    (item,) = pair_items(pool, ("sdxl", "flux"))
    first, second = annotators(pool, 2)
    lease = assignment_next(session=f.make_session(first))
    annotation_submit(assignment=lease, data={"fidelity": ["1"], "fidelity.strength": ["2"]})
    assert ItemQuota.objects.filter(item=item, pool=pool).values_list("wanted", "done", "leased").get() == (1, 1, 0)
    assert comparisons_adapt(pool=pool) == 1
    assert assignment_next(session=f.make_session(first)) is None  # the item has room, but not for them
    again = assignment_next(session=f.make_session(second))
    assert again is not None and again.item_id == item.pk
    assert assignment_next(session=f.make_session(annotators(pool, 1)[0])) is None  # no item over its quota
    assert_quotas_whole(pool)


# --- refusals -----------------------------------------------------------------------------------


def test_a_protocol_without_a_pairwise_field_gets_nothing(owner, study, pool, items):
    CountryPool.objects.filter(pk=pool.pk).update(adaptive_budget=20)
    pool.refresh_from_db()
    spent(pool)
    assert comparisons_adapt(pool=pool) == 0 and placed(pool) == 0


def test_a_pool_with_its_budget_spent_or_none_gets_nothing(owner):
    pool = pairwise_pool(owner, budget=0)
    pair_items(pool, ("a", "b"), n=3)
    spent(pool)
    assert comparisons_adapt(pool=pool) == 0
    CountryPool.objects.filter(pk=pool.pk).update(adaptive_budget=2)
    pool.refresh_from_db()
    assert comparisons_adapt(pool=pool) == 2
    spent(pool)
    assert comparisons_adapt(pool=pool) == 0 and placed(pool) == 2


def test_a_settled_order_keeps_the_budget(owner):
    pool = pairwise_pool(owner, budget=10, per_item=8)
    (item,) = pair_items(pool, ("flux", "sdxl"))
    answered(pool, item, annotators(pool, 8), ["1"] * 8)
    assert comparisons_adapt(pool=pool) == 0 and placed(pool) == 0


def test_adapt_all_leaves_closed_and_draft_studies_alone(owner):
    running = pairwise_pool(owner, budget=5)
    closed = pairwise_pool(owner, budget=5, status=Study.Status.CLOSED)
    for pool in (running, closed):
        pair_items(pool, ("a", "b"), n=5)
        spent(pool)
    assert adapt_all() == 5 and placed(running) == 5 and placed(closed) == 0
    spent(running)
    assert comparisons_adapt_task() == 0  # the budget spent: the pool is not even read


# --- quotas keep what was added ------------------------------------------------------------------


def test_quotas_sync_and_pool_update_keep_the_added_slots(owner):
    pool = pairwise_pool(owner, budget=5, per_item=2)
    items = pair_items(pool, ("a", "b"), n=5)
    spent(pool)
    assert comparisons_adapt(pool=pool) == 5
    quotas_sync(pool=pool)
    assert set(ItemQuota.objects.filter(pool=pool).values_list("wanted", "added")) == {(3, 1)}
    pool_update(pool=pool, annotations_per_item=4)
    assert set(ItemQuota.objects.filter(pool=pool).values_list("wanted", "added")) == {(5, 1)}
    ItemQuota.objects.filter(item=items[0], pool=pool).update(done=5)
    pool_update(pool=pool, annotations_per_item=4)  # 4 + 1 added hold the 5 done
    with pytest.raises(WorkspaceError, match=r"has 5 annotations already \(1 of them on top of the pool's number\): "
                                             r"ask for at least 4"):
        pool_update(pool=pool, annotations_per_item=3)


# --- the pure parts -------------------------------------------------------------------------------


def score(thing, s, low, high):
    return ThingScore(thing, s, low, high, 1, 0, 0, 0, 1)


def test_uncertainty_is_the_overlap_over_the_gap():
    a, b, c = score("a", 1.0, 0.0, 2.0), score("b", 0.5, -0.5, 1.5), score("c", -2.0, -3.0, -1.0)
    assert order_uncertainty(a, b, 3) == pytest.approx(1.5 / 0.5)
    assert order_uncertainty(a, c, 3) == 0.0  # apart: settled
    assert order_uncertainty(a, b, 0) == math.inf  # never compared
    assert order_uncertainty(a, score("d", 1.0, 0.5, 1.5), 2) == math.inf  # equal scores


def test_a_pair_never_compared_is_ranked_first_and_a_settled_one_left_out():
    rows = [("a", "b", "left"), ("a", "b", "right"), ("a", "b", "left")] + [("a", "d", "left")] * 12
    assert pairs_ranked([("a", "b"), ("a", "c"), ("a", "d")], rows) == [("a", "c"), ("a", "b")]


def test_pairs_are_ranked_by_fewest_comparisons_before_a_fit():
    rows = [("a", "b", "left")]
    assert pairs_ranked([("b", "c"), ("a", "b")], rows) == [("b", "c"), ("a", "b")]


def test_dealing_goes_round_the_pairs_one_item_each():
    slots = [Slot(1, ("a", "b"), 2), Slot(2, ("a", "b"), 0), Slot(3, ("b", "c"), 1)]
    assert deal([("a", "b"), ("b", "c")], slots, 5) == [2, 3, 1]  # fewest done first; each item once
    assert deal([("b", "c"), ("a", "b")], slots, 2) == [3, 2]
    assert deal([], slots, 5) == []


# --- the beat entry ----------------------------------------------------------------------------


def test_the_beat_runs_the_adaptive_mode_every_five_minutes():
    entry = django_settings.CELERY_BEAT_SCHEDULE["adapt-comparisons"]
    assert entry == {"task": "analysis.tasks.comparisons_adapt_task", "schedule": 300.0}


# --- the researcher sets it: the pool form, the API, the pools list ----------------------------


def test_the_owner_sets_the_budget_on_the_pool_form_and_the_list_shows_it(client, owner):
    pool = pairwise_pool(owner, budget=0)
    pair_items(pool, ("a", "b"), n=5)
    login(client, owner)
    url = reverse("studies:pool-edit", args=[pool.study.pk, pool.pk])
    assert "Adaptive comparisons" in client.get(url).content.decode()
    form = {"country": "IN", "annotations_per_item": "1", "min_distinct_annotators": "0", "adaptive_budget": "40"}
    assert client.post(url, form).status_code == 302
    pool.refresh_from_db()
    assert pool.adaptive_budget == 40
    spent(pool)
    comparisons_adapt(pool=pool)
    page = client.get(reverse("studies:pool-list", args=[pool.study.pk])).content.decode()
    assert "adaptive: 5 of 40 extra annotations placed" in page


def test_the_pool_form_refuses_a_negative_budget(client, owner):
    pool = pairwise_pool(owner, budget=3)
    login(client, owner)
    form = {"country": "IN", "annotations_per_item": "1", "min_distinct_annotators": "0", "adaptive_budget": "-1"}
    response = client.post(reverse("studies:pool-edit", args=[pool.study.pk, pool.pk]), form)
    assert response.status_code == 400
    assert "The adaptive budget is a number of extra annotations: 0 (off) or more." in response.content.decode()
    pool.refresh_from_db()
    assert pool.adaptive_budget == 3


def test_the_api_sets_the_budget_and_refuses_a_negative_one(owner):
    pool = pairwise_pool(owner, budget=0)
    url = f"/api/v1/studies/{pool.study.pk}/pools/{pool.pk}/"
    api = client_of(owner)
    response = api.patch(url, {"adaptive_budget": 25}, format="json")
    assert response.status_code == 200 and response.json()["adaptive_budget"] == 25
    refused = api.patch(url, {"adaptive_budget": -5}, format="json")
    assert refused.status_code == 400
    says = "The adaptive budget is a number of extra annotations: 0 (off) or more."
    assert refused.json()["adaptive_budget"] == [says]
    assert api.patch(url, {"adaptive_budget": "lots"}, format="json").status_code == 400
    pool.refresh_from_db()
    assert pool.adaptive_budget == 25
