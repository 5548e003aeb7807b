"""The v2 catalogue (issue 13): 131 data families from real BEHAVIOR-1K activities plus the 3 hand-written first
families (SPEC §9's 134), at most three families per activity, every group and area, each a family file whose
designs the builder can realise."""

from __future__ import annotations

from collections import Counter

GROUPS = {"food_preparation", "dishware_and_dining", "cleaning_and_laundry", "bedroom_and_storage",
          "pet_and_household_care"}
AREAS = {"kitchen", "utility_room", "living_room", "bedroom", "dining_room", "bathroom", "garden"}


def _data(reg):
    return {n: f for n, f in reg.families.items() if f.kind == "data"}


def test_131_data_families_and_the_first_three_make_134(reg):
    firsts = {n for n, f in reg.families.items() if f.kind == "first_family" and not n.startswith("mech_")}
    assert len(_data(reg)) == 131 and firsts == {"spoon_fruit", "bowl_to_sink", "hot_cocoa"}


def test_at_least_60_activities_at_most_3_families_each(reg):
    per = Counter(f.source_activity for f in _data(reg).values())
    assert len(per) >= 60 and max(per.values()) <= 3
    # a family is named after its activity, then its own scenario
    assert all(n.startswith(f.source_activity + "-") for n, f in _data(reg).items())


def test_every_group_and_area_is_used(reg):
    groups = Counter(f.activity_group for f in _data(reg).values())
    areas = Counter(f.household_area for f in _data(reg).values())
    assert set(groups) == GROUPS and min(groups.values()) >= 15
    assert set(areas) == AREAS and min(areas.values()) >= 5


def test_every_data_family_offers_a_design_and_one_request(reg):
    from hygiene_pddl.episodes.designs import family_designs

    for name, fam in _data(reg).items():
        designs = family_designs(reg, fam)
        assert "single" in designs and len(designs) >= 3, name
        assert len(fam.requests) == 1 and fam.requests[0].strip(), name
