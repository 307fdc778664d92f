"""Which items are ordinary and which a pool gets, written once: ``Item.objects.ordinary()`` and
``Item.objects.routed_to(pool)`` (with ``Study.routes``, the same rule for one item and pool)."""

from studies.models import CheckKind, Item, Study

from .. import factories as f


def test_an_ordinary_item_is_neither_an_example_nor_a_check(study, pool):
    ordinary = f.make_item(study)
    example = f.make_item(study, example=True)
    attention = f.make_item(study, check_kind=CheckKind.ATTENTION)
    gold = f.make_item(study, check_kind=CheckKind.GOLD)
    assert list(Item.objects.ordinary().filter(study=study)) == [ordinary]
    assert {example, attention, gold}.isdisjoint(study.items.ordinary())


def test_a_study_routing_by_country_gives_a_pool_the_items_of_its_country(study, pool, other_pool):
    india, japan = f.make_item(study, "IN"), f.make_item(study, "JP")
    f.make_item(f.make_study(study.owner, name="Another"), "IN")  # another study's item: never routed here
    assert list(Item.objects.routed_to(pool)) == [india]
    assert list(Item.objects.routed_to(other_pool, study=study)) == [japan]
    assert study.routes(item_country="IN", pool_country="IN") and not study.routes(item_country="JP", pool_country="IN")


def test_a_study_routing_to_every_pool_gives_each_pool_every_item(study, pool, other_pool):
    Study.objects.filter(pk=study.pk).update(routing=Study.Routing.ALL_POOLS)
    study.refresh_from_db()
    pool.refresh_from_db()
    items = [f.make_item(study, "IN"), f.make_item(study, "JP")]
    assert set(Item.objects.routed_to(pool)) == set(items)
    assert study.routes(item_country="JP", pool_country="IN")


def test_ordinary_and_routed_chain(study, pool):
    routed = f.make_item(study, "IN")
    f.make_item(study, "IN", check_kind=CheckKind.GOLD)
    assert list(Item.objects.ordinary().routed_to(pool)) == [routed]
