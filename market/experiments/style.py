"""One colour and one marker per policy, the same in every figure (reports and dashboard).

:func:`policy_style` maps a name (lower-cased, letters, digits and dots only) to ``(colour,
marker)``: fixed entries for the papers' policies (:data:`FIXED`); one light-to-dark scale for
``VQoPS x`` (:func:`vqops_colour`); otherwise the marker of the policy the name starts with and
a colour hashed from the name. :func:`policy_styles` styles a set of names at once and keeps
their colours distinct (a taken colour moves to the next free one, in sorted order), so a
policy keeps its colour whichever others are shown.
"""

from __future__ import annotations

import hashlib
import math
import re

#: (colour, marker) of the papers' policies and the variant names the scenarios use.
FIXED: dict[str, tuple[str, str]] = {
    # profit paper, §3.3 (and the accept-all reference of §3.4)
    "firstprofit": ("#1F77B4", "circle"),
    "firstopportunity": ("#D62728", "diamond"),
    "firstopportunityrate": ("#FF7F0E", "triangle-up"),
    "firstreward": ("#2CA02C", "square"),
    "firstprice": ("#9467BD", "triangle-down"),
    "sjf": ("#8C564B", "cross"),
    "ljf": ("#E377C2", "star"),
    "firstprofitacceptall": ("#7F7F7F", "circle-open"),
    "acceptall": ("#4D4D4D", "x-open"),
    # backfilling (the QoPS paper's baselines)
    "fcfs": ("#17BECF", "hexagon"),
    "easy": ("#BCBD22", "pentagon"),
    "easyall": ("#BCBD22", "pentagon"),
    "conservative": ("#393B79", "hourglass"),
    "conservativeall": ("#393B79", "hourglass"),
    # QoPS and its comparisons (Islam et al.)
    "qops": ("#637939", "circle"),
    "msb": ("#8C6D31", "square"),
    "mrt": ("#7B4173", "triangle-up"),
    "dvqops": ("#000000", "star-square"),
    # deadline clusters (Yeo & Buyya)
    "libra": ("#1B9E77", "circle"),
    "librarisk": ("#D95F02", "diamond"),
    "edf": ("#7570B3", "square"),
    "edfnoadmissioncontrol": ("#B3B0DE", "square-open"),
}

#: The VQoPS scale: OC-Factor 0 (light) to :data:`VQOPS_TOP` and above (dark).
VQOPS_SCALE = ("#9ECAE1", "#6BAED6", "#2171B5", "#08306B")
VQOPS_TOP = 0.4
VQOPS_MARKER = "diamond-wide"

#: Colours for names without a fixed entry: none is a fixed entry's colour, and each is dark
#: enough for a thin line on white (Dark2, Tol's and Okabe-Ito's, then tab20b's darker ones).
FALLBACK_COLOURS = (
    "#E7298A", "#66A61E", "#E6AB02", "#A6761D", "#882255", "#44AA99", "#117733", "#AA4499",
    "#56B4E9", "#5254A3", "#BB5566", "#AD494A", "#A55194", "#6B6ECF", "#999933", "#CC79A7",
)  # fmt: skip
FALLBACK_MARKERS = (
    "circle", "square", "diamond", "triangle-up", "triangle-down", "cross", "x", "pentagon",
    "hexagon", "star",
)  # fmt: skip

_VQOPS = re.compile(r"^vqops(\d+(?:\.\d*)?|\.\d+)?$")


def key(name: str) -> str:
    """The name as matched: lower case, letters, digits and dots only."""
    return re.sub(r"[^a-z0-9.]", "", str(name).lower())


def vqops_colour(oc_factor: float) -> str:
    """The colour of VQoPS with OC-Factor ``oc_factor`` on its ordered scale, spaced as
    log(1 + x / 0.05) so that the papers' 0, 0.05, 0.1, 0.2, 0.4 are spread evenly enough."""
    x = min(max(float(oc_factor), 0.0), VQOPS_TOP)
    t = math.log1p(x / 0.05) / math.log1p(VQOPS_TOP / 0.05)
    pos = t * (len(VQOPS_SCALE) - 1)
    i = min(int(pos), len(VQOPS_SCALE) - 2)
    a, b = _rgb(VQOPS_SCALE[i]), _rgb(VQOPS_SCALE[i + 1])
    f = pos - i
    return "#" + "".join(f"{round(u + (v - u) * f):02X}" for u, v in zip(a, b, strict=True))


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _fixed(k: str) -> tuple[str, str] | None:
    if k in FIXED:
        return FIXED[k]
    match = _VQOPS.match(k)
    if match:
        value = match.group(1)
        return vqops_colour(float(value) if value not in (None, ".") else 0.0), VQOPS_MARKER
    return None


def _hash(k: str) -> int:
    return int.from_bytes(hashlib.sha256(k.encode()).digest()[:8], "big")


def _fallback_marker(k: str) -> str:
    """The marker of the longest fixed name ``k`` starts with, else one by hash."""
    family = max((f for f in FIXED if k.startswith(f)), key=len, default=None)
    if family is not None:
        return FIXED[family][1]
    if k.startswith("vqops"):
        return VQOPS_MARKER
    return FALLBACK_MARKERS[_hash(k) % len(FALLBACK_MARKERS)]


def policy_style(name: str) -> tuple[str, str]:
    """``(colour, marker)`` of the policy or variant ``name`` (see the module docstring)."""
    k = key(name)
    fixed = _fixed(k)
    if fixed is not None:
        return fixed
    return FALLBACK_COLOURS[_hash(k) % len(FALLBACK_COLOURS)], _fallback_marker(k)


def policy_styles(names) -> dict[str, tuple[str, str]]:
    """The style of every name in ``names``, fallback colours kept distinct within the set
    (a fixed entry always keeps its own; see the module docstring)."""
    names = list(dict.fromkeys(names))
    styles = {n: policy_style(n) for n in names if _fixed(key(n)) is not None}
    used = {colour for colour, _ in styles.values()}
    for name in sorted((n for n in names if n not in styles), key=key):
        colour, marker = policy_style(name)
        start = FALLBACK_COLOURS.index(colour)
        for step in range(len(FALLBACK_COLOURS)):
            candidate = FALLBACK_COLOURS[(start + step) % len(FALLBACK_COLOURS)]
            if candidate not in used:
                colour = candidate
                break
        used.add(colour)
        styles[name] = (colour, marker)
    return {n: styles[n] for n in names}
