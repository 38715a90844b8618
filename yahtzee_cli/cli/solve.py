"""`yahtzee solve`: build and cache the optimal-strategy table of a rule set (api.solve) and show what
optimal play scores."""


from typing import Annotated

import typer

from ..formats.output import Output
from .app import PlotOpt, RiskOpt, RulesOpt, SetOpt, app, examples, get_rules, note, outputs
from .progress import waiting


@app.command(short_help="Expected score of optimal play (builds the table).", epilog=examples(
    "yahtzee solve",
    "yahtzee solve --rules yatzy --json",
    "yahtzee solve --rules yatzy --csv",
))
@outputs()
def solve(
    rules: RulesOpt = None,
    set_: SetOpt = None,
    json: bool = False,
    csv: bool = False,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Build the table even when it is cached.")] = False,
    quiet: bool = False,
    distribution: Annotated[bool, typer.Option("--distribution", help="Also the exact distribution of the final "
                                               "score: percentiles, chances, histogram (JSON: the pmf).")] = False,
    risk: RiskOpt = None,
    target: Annotated[int | None, typer.Option(
        "--target", metavar="T", help="With --distribution: also show P(final >= T).",
                                               show_default=False)] = None,
    plot: PlotOpt = None,
    *,
    out: Output,
) -> None:
    """Build the optimal-strategy table (cached by rule set) and print the expected score and its SD.

    Rule sets without an exact table (several columns, saved rolls) prepare the approximate strategy
    instead and print its simulated mean, labelled approximate."""
    rs = get_rules(rules, set_)
    from ..api import SolveOptions
    from ..api import solve as run
    from ..play.solving import SOLVE_CSV_HEAD

    with waiting(f"solving {rs.name}", quiet=out.quiet) as shown:
        solution = run(rs, note, options=SolveOptions(rebuild, distribution, risk, target, plot), stage=shown.stage)
    out.record(solution.record)
    out.table(SOLVE_CSV_HEAD, [solution.row])
    out.text("\n".join(solution.lines) + "\n")
    if solution.advice is not None:
        note(solution.advice)
