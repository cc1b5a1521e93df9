"""The pages generated when the site is built (mkdocs-gen-files runs this script).

- ``reference/cli.md``: every command and option, read from ``gridmarket``'s argparse parser;
- ``reference/scenario.md``: every scenario field, read from the pydantic schema (type, default,
  range, the field's description);
- ``reference/policies.md``: every registered policy with its constructor's parameters;
- ``reference/limits.md``: every limit on a run, a trace and the dashboard, read from the
  constants in the code and their comments (``docs/gen_limits.py``);
- ``reference/api/*.md``: mkdocstrings directives for the Python API;
- ``results/figures/...``: the figures each results page links to, drawn from the stored sweep
  results by the command in the page's stamp (``gridmarket report ... --markdown ...``).

Nothing here is typed by hand: change the parser, the schema or a policy and the page follows.
The functions return Markdown so that tests can call them without building the site. The
reference pages are also kept in docs/ for readers of the sources: ``python docs/gen_ref.py``
(``make docs-reference``) writes them there, on an 80-column usage, and a test compares them.
"""

from __future__ import annotations

import argparse
import inspect
import os
import runpy
import shlex
import tempfile
import types
import typing
from pathlib import Path

from pydantic import BaseModel
from pydantic.fields import FieldInfo

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


# -- the command line ---------------------------------------------------------------------------


def _subcommands(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, helps.get(name), sub


def _option_row(action: argparse.Action) -> list[str] | None:
    if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
        return None
    if action.option_strings:
        name = ", ".join(f"`{o}`" for o in action.option_strings)
        if action.nargs != 0:
            metavar = action.metavar or (
                "{" + ",".join(map(str, action.choices)) + "}" if action.choices else action.dest
            )
            name += f" `{metavar.upper() if metavar == action.dest else metavar}`"
    else:
        name = f"`{action.metavar or action.dest}`"
    default = action.default
    shown = "" if default in (None, False, [], argparse.SUPPRESS) else f"`{default}`"
    if isinstance(action, argparse._VersionAction):
        shown = ""
    help_text = (action.help or "").replace("|", "\\|")
    if action.choices and action.option_strings:
        help_text = (
            (help_text + "; " if help_text else "")
            + "one of "
            + ", ".join(f"`{c}`" for c in action.choices)
        )
    if isinstance(action, argparse._AppendAction):
        help_text += " (repeatable)"
    return [name, shown, help_text]


def _command_section(path: str, help_text: str | None, parser, level: int) -> list[str]:
    usage = parser.format_usage().strip().removeprefix("usage: ")
    lines = [f"{'#' * level} `{path}`", ""]
    if help_text or parser.description:
        lines += [(help_text or parser.description).rstrip(".") + ".", ""]
    lines += ["```text", usage, "```", ""]
    rows = [r for r in map(_option_row, parser._actions) if r is not None]
    if rows:
        lines += ["| argument | default | meaning |", "| --- | --- | --- |"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        lines.append("")
    for name, sub_help, sub in _subcommands(parser):
        lines += _command_section(f"{path} {name}", sub_help, sub, min(level + 1, 4))
    return lines


def cli_page() -> str:
    """The command line, section by section, from ``market.cli.main``'s parser."""
    from market.cli.main import _parser

    parser = _parser()
    lines = [
        "# Command line",
        "",
        "Generated from the `gridmarket` command's argument parser (`market/cli/main.py`, and the",
        "commands other packages register, such as the dashboard's). Every command exits with",
        "status 2 and one line `gridmarket: error: ...` on bad input.",
        "",
    ]
    lines += _command_section("gridmarket", parser.description, parser, 2)[2:]
    return "\n".join(lines)


# -- the scenario schema ------------------------------------------------------------------------


def _type_name(annotation) -> str:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _type_name(args[0])
    if origin in (typing.Union, types.UnionType):
        return " \\| ".join(_type_name(a) for a in args)
    if origin is typing.Literal:
        return " \\| ".join(f"`{a}`" for a in args)
    if origin in (list, tuple, dict):
        inner = ", ".join(_type_name(a) for a in args if a is not Ellipsis)
        return f"{origin.__name__}[{inner}]"
    if annotation is type(None):
        return "none"
    return getattr(annotation, "__name__", str(annotation)).replace("typing.", "")


def _constraints(info: FieldInfo) -> str:
    words = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<", "min_length": "length >=",
             "max_length": "length <="}  # fmt: skip
    found = []
    for item in info.metadata:
        for attr, symbol in words.items():
            value = getattr(item, attr, None)
            if value is not None:
                shown = f"{value:,}" if isinstance(value, int) else f"{value}"
                found.append(f"{symbol} {shown}")
    return ", ".join(found)


def _default(info: FieldInfo) -> str:
    if info.is_required():
        return "required"
    value = info.get_default(call_default_factory=True)
    if isinstance(value, BaseModel):
        return "(its defaults)"
    if isinstance(value, list) and value and isinstance(value[0], BaseModel):
        return f"one {type(value[0]).__name__}"
    if value is None:
        return "none"
    text = repr(value) if not isinstance(value, str) else value
    return f"`{text}`" if text != "" else '`""`'


def _models_in(annotation) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for a in typing.get_args(annotation) for m in _models_in(a)]


def _model_sections(model: type[BaseModel], path: str, seen: set, out: list[str]) -> None:
    if (model, path) in seen:
        return
    seen.add((model, path))
    doc = inspect.cleandoc(model.__doc__ or "").split("\n\n")[0].replace("\n", " ")
    kind = model.model_fields.get("kind")
    tag = f" (`kind: {kind.default}`)" if kind is not None and "kind" not in path else ""
    out += [f"## `{path}`{tag}" if path else "## The scenario (top level)", ""]
    out += [f"{model.__name__} (`{model.__module__}`): {doc}", ""]
    out += ["| field | type | default | range | description |", "| --- | --- | --- | --- | --- |"]
    nested = []
    for name, info in model.model_fields.items():
        description = (info.description or "").replace("|", "\\|").replace("\n", " ")
        row = [f"`{name}`", _type_name(info.annotation), _default(info), _constraints(info),
               description]  # fmt: skip
        out.append("| " + " | ".join(row) + " |")
        many = typing.get_origin(info.annotation) in (list,) or "list[" in str(info.annotation)
        for sub in _models_in(info.annotation):
            sub_path = f"{path}.{name}" if path else name
            nested.append((sub, f"{sub_path}.N" if many else sub_path))
    out.append("")
    for sub, sub_path in nested:
        if sub.__name__ == "PolicySpec":
            continue  # a policy's parameters are on the Policies page
        _model_sections(sub, sub_path, seen, out)


def scenario_page() -> str:
    """Every field of a scenario file, section by section, from the pydantic schema."""
    from market.inputs.scenario import Scenario
    from market.inputs.workloads import KINDS

    lines = [
        "# Scenario fields",
        "",
        "Generated from the scenario schema (`market/inputs/scenario.py`, the workload, batch-site",
        "and sweep specs). A field's path is what `--set` and `variants` take, with `N` for a",
        "list's position (`clients.0.workload.jobs`). A policy field (`scheduler`, `admission`,",
        "`pricing`, `cluster`) is a registered name or `{name: ..., param: value}`: see",
        "[Policies](policies.md). Unknown fields are errors; every error names the file and field.",
        "",
        "A client's `workload` is one of these kinds, chosen by its `kind` field: "
        + ", ".join(f"`{k}` ({m.__name__})" for k, m in KINDS.items())
        + " (default `profit`).",
        "",
    ]
    seen: set = set()
    _model_sections(Scenario, "", seen, lines)
    return "\n".join(lines)


# -- the policies -------------------------------------------------------------------------------


def _parameters(cls) -> str:
    hints = typing.get_type_hints(cls.__init__)
    words = []
    for name, param in inspect.signature(cls).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        kind = _type_name(hints[name]) if name in hints else ""
        default = "" if param.default is param.empty else f" = `{param.default!r}`"
        words.append(f"`{name}`" + (f": {kind}" if kind else "") + default)
    return "<br>".join(words) or "none"


def policies_page() -> str:
    """Every registered policy: its name, class, first docstring paragraph and parameters."""
    import agents.policies  # noqa: F401  (registers every policy)
    from agents.policies.registry import ADMISSIONS, CLUSTERS, PRICINGS, RESERVATIONS, SCHEDULERS

    lines = [
        "# Policies",
        "",
        "Generated from the policy registry (`agents/policies/registry.py`). A scenario names a",
        "policy, with its parameters if any: `scheduler: first_profit` or",
        "`scheduler: {name: first_reward, alpha: 0.3}`. Parameters are the class's constructor",
        "arguments, checked against their annotations. A field may also name a class of your own",
        "as `module:Class`, or one an installed package declares. To add one, see",
        "[Architecture](../architecture.md#adding-a-policy).",
        "",
    ]
    tables = (
        ("Schedulers", "service_providers.N.scheduler", SCHEDULERS),
        ("Admission policies", "service_providers.N.admission", ADMISSIONS),
        ("Pricing policies", "service_providers.N.pricing", PRICINGS),
        ("Deadline clusters", "service_providers.N.cluster", CLUSTERS),
        (
            "Reservation planners",
            "none: VARQ users plan with `varq` (`batch_sites.N.varq`)",
            RESERVATIONS,
        ),
    )
    for title, field, table in tables:
        shown = field if field.startswith("none") else f"`{field}`"
        lines += [f"## {title}", "", f"Scenario field: {shown}.", ""]
        lines += ["| name | class | what it does | parameters |", "| --- | --- | --- | --- |"]
        for name, cls in sorted(table.items()):
            doc = inspect.cleandoc(cls.__doc__ or "").split("\n\n")[0].replace("\n", " ")
            doc = doc.replace("|", "\\|")
            where = f"`{cls.__module__}.{cls.__qualname__}`"
            lines.append(f"| `{name}` | {where} | {doc} | {_parameters(cls)} |")
        lines.append("")
    return "\n".join(lines)


# -- the Python API -----------------------------------------------------------------------------


def _modules(package: str) -> list[str]:
    folder = ROOT / package.replace(".", "/")
    names = sorted(p.stem for p in folder.glob("*.py") if not p.stem.startswith("_"))
    return [f"{package}.{n}" for n in names]


API = {
    "market": ("market", "The public API: the model, scenarios and results.", ["market"]),
    "sim": ("market.sim", "The Mesa model, its clock and its snapshot.", _modules("market.sim")),
    "core": ("market.core", "The pure kernel.", _modules("market.core")),
    "agents": ("agents", "The Mesa agents and the planner.", _modules("agents")),
    "policies": ("agents.policies", "The pure policies.", _modules("agents.policies")),
}


def api_page(key: str) -> str:
    title, intro, modules = API[key]
    lines = [f"# {title}", "", intro, ""]
    for module in modules:
        lines += [f"::: {module}", ""]
    return "\n".join(lines)


# -- the results figures ------------------------------------------------------------------------


def results_figures() -> dict[str, Path]:
    """The figure files each results page links to, drawn into a temporary folder by the
    command of each block's stamp (without PNG and without rewriting the page): a map from the
    path under docs/ to the file drawn."""
    from market.cli.main import _parser
    from market.experiments.report import make_report
    from market.experiments.report_markdown import block_of, blocks, command_of

    drawn: dict[str, Path] = {}
    scratch = Path(tempfile.mkdtemp(prefix="gridmarket-docs-"))
    for page in sorted((DOCS / "results").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for key in blocks(text):
            command = command_of(block_of(text, key) or "")
            if command is None:
                continue
            args = _parser().parse_args(shlex.split(command)[1:])
            if args.out is None or args.markdown is None:
                continue
            metrics = args.metrics.split(",") if args.metrics else None
            out = scratch / str(len(drawn))
            report = make_report(ROOT / args.results, out, error=args.error, metrics=metrics,
                                 png=False)  # fmt: skip
            target = (ROOT / args.out).resolve().relative_to(DOCS)
            for path in [*report.figures, out / "plotly.min.js"]:
                drawn[(target / path.name).as_posix()] = path
    return drawn


def reference_pages() -> dict[str, str]:
    """Each generated reference page's path under docs/ and its text."""
    return {
        "reference/cli.md": cli_page() + "\n",
        "reference/scenario.md": scenario_page() + "\n",
        "reference/policies.md": policies_page() + "\n",
        "reference/limits.md": runpy.run_path(str(DOCS / "gen_limits.py"))["limits_page"]() + "\n",
        **{f"reference/api/{key}.md": api_page(key) + "\n" for key in API},
    }


def main() -> None:
    import mkdocs_gen_files

    for name, text in reference_pages().items():
        with mkdocs_gen_files.open(name, "w") as handle:
            handle.write(text)
    for name, source in results_figures().items():
        with mkdocs_gen_files.open(name, "wb") as handle:
            handle.write(source.read_bytes())


def write_sources() -> None:
    """The reference pages written into docs/ (usage lines wrapped at 80 columns)."""
    os.environ["COLUMNS"] = "80"
    for name, text in reference_pages().items():
        (DOCS / name).write_text(text, encoding="utf-8")
        print(f"wrote docs/{name}")


if __name__ == "<run_path>":  # mkdocs-gen-files, building the site
    main()
elif __name__ == "__main__":
    write_sources()
