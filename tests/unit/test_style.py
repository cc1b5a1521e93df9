"""One colour and marker per policy (market/experiments/style.py): fixed for the papers' names, an
ordered
scale for VQoPS, a stable fallback for the rest."""

from __future__ import annotations

import re

from market.experiments.style import (
    FALLBACK_COLOURS,
    FIXED,
    policy_style,
    policy_styles,
    vqops_colour,
)

PAPERS = [
    "FirstProfit", "FirstPrice", "FirstReward", "FirstOpportunity", "FirstOpportunityRate",
    "SJF", "LJF", "FCFS", "EASY", "conservative", "QoPS", "MSB", "MRT", "DVQoPS", "Libra",
    "LibraRisk", "EDF", "FirstProfit, accept all", "accept_all", "EDF (no admission control)",
]  # fmt: skip
VQOPS = ["VQoPS 0", "VQoPS 0.05", "VQoPS 0.1", "VQoPS 0.2", "VQoPS 0.4"]
HEX = re.compile(r"^#[0-9A-F]{6}$")


def test_the_papers_policies_have_distinct_fixed_styles():
    styles = [policy_style(n) for n in PAPERS + VQOPS]
    assert len({colour for colour, _ in styles}) == len(styles)
    assert all(HEX.match(colour) for colour, _ in styles)
    # the pair the issue found hidden one under the other differ in colour and marker
    assert policy_style("FirstProfit")[0] != policy_style("FirstOpportunity")[0]
    assert policy_style("FirstProfit")[1] != policy_style("FirstOpportunity")[1]


def test_spellings_of_one_policy_share_its_style():
    assert policy_style("first_profit") == policy_style("FirstProfit") == FIXED["firstprofit"]
    assert policy_style("libra_risk") == policy_style("LibraRisk")
    assert policy_style("EASY (all)") == policy_style("easy")
    assert policy_style("Conservative (all)") == policy_style("conservative")


def test_vqops_is_one_ordered_scale_from_light_to_dark():
    def lightness(colour):
        return sum(int(colour[i : i + 2], 16) for i in (1, 3, 5))

    shades = [lightness(policy_style(n)[0]) for n in VQOPS]
    assert shades == sorted(shades, reverse=True) and len(set(shades)) == len(shades)
    assert {policy_style(n)[1] for n in VQOPS} == {"diamond-wide"}
    assert vqops_colour(0.4) == vqops_colour(1.0)  # the top of the scale and beyond
    assert policy_style("VQoPS 0.4")[0] == vqops_colour(0.4) == "#08306B"


def test_a_policy_keeps_its_style_whatever_else_is_shown():
    # the dashboard's old colours followed list position: unticking one recoloured the rest
    everything = ["FirstProfit", "My policy", "Other idea", "SJF"]
    whole = policy_styles(everything)
    assert policy_styles(everything[1:]) == {n: whole[n] for n in everything[1:]}
    assert policy_style("My policy") == policy_style("My policy")  # a hash, not a counter


def test_fallback_names_get_their_familys_marker_and_a_colour_of_their_own():
    colour, marker = policy_style("FirstProfit (10%)")
    assert marker == policy_style("FirstProfit")[1]
    assert colour in FALLBACK_COLOURS and colour not in {c for c, _ in FIXED.values()}
    names = [f"FirstProfit ({p}%)" for p in (5, 10, 20)] + [f"policy {i}" for i in range(10)]
    styles = policy_styles(names)
    assert len({c for c, _ in styles.values()}) == len(names)  # distinct within the set


def test_fallback_colours_are_dark_enough_for_a_line_on_white():
    # WCAG contrast against white: the pale tab20 halves (#AEC7E8: 1.7) made thin lines vanish
    def luminance(colour):
        def channel(c):
            c = int(colour[c : c + 2], 16) / 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

        r, g, b = channel(1), channel(3), channel(5)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    contrast = {c: 1.05 / (luminance(c) + 0.05) for c in FALLBACK_COLOURS}
    assert min(contrast.values()) >= 2.0, contrast
    assert len(set(FALLBACK_COLOURS)) == len(FALLBACK_COLOURS)
    assert not set(FALLBACK_COLOURS) & {c for c, _ in FIXED.values()}
