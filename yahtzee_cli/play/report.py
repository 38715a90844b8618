"""The one place the engine's results become text for people: final-score distributions (their JSON
summary too, beside the text), histograms, hints of every kind, simulation reports and graded games.

Tables go through formats.render.table and histograms through text.histogram, so every command's text
reads the same; nothing here computes, and nothing loads numpy (a hint from a stored table stays light)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..rules.engine import RuleSet
    from ..solver.pmf import Distribution
    from ..strategy.turn import Choice, Evaluation
    from .analyze import Decision, GameAnalysis, PlayerSummary, Totals
    from .luck import Moment

PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)  # the percentiles a distribution is summarised by


# --------------------------------------------------------------------------- distributions


def thresholds(d: Distribution) -> list[int]:
    """Round thresholds across the likely range (multiples of 50 between the 5th and 99th percentile)."""
    from .hint import round_target

    lo, hi = d.percentile(5), d.percentile(99)
    out = list(range((lo + 49) // 50 * 50, hi + 1, 50))
    return out or [round_target(d.percentile(50))]


def targets(d: Distribution, target: int | None) -> list[int]:
    """The scores a distribution's chances are shown at: its thresholds, and `target` when given."""
    ts = thresholds(d)
    return sorted(set(ts + [target])) if target is not None else ts


def summary(d: Distribution, targets: list[int] | None = None) -> dict[str, Any]:
    """The JSON shape of a distribution: pmf pairs (zero cells left out), percentiles, P(>= x)."""
    ts = thresholds(d) if targets is None else targets
    nz = d.pmf.nonzero()[0]
    return {
        "mean": d.mean, "sd": d.sd,
        "percentiles": {str(q): d.percentile(q) for q in PERCENTILES},
        "at_least": {str(x): d.at_least(x) for x in ts},
        "pmf": [[int(d.lo + i), float(d.pmf[i])] for i in nz.tolist()],
    }


def histogram_lines(d: Distribution, bar: int = 50, max_bins: int = 30) -> list[str]:
    """A terminal histogram of the likely range (0.1st to 99.9th percentile), bins of 5, 10, 20 or 50."""
    lo, hi = d.percentile(0.1), d.percentile(99.9)
    width = next((w for w in (5, 10, 20, 50, 100) if (hi - lo) // w + 1 <= max_bins), 100)
    start = lo // width * width
    rows = []
    for a in range(start, hi + 1, width):
        i0, i1 = max(a - d.lo, 0), max(min(a + width - d.lo, len(d.pmf)), 0)
        rows.append((f"{a}-{a + width - 1}", float(d.pmf[i0:i1].sum())))
    from ..text import histogram

    return histogram(f"final score (bins of {width}, P in %):", [(label, f"{100 * p:5.2f}", p) for label, p in rows],
                     bar=bar)


def distribution_lines(d: Distribution, targets: list[int]) -> list[str]:
    """An exact distribution as `solve --distribution` shows it: mean and SD, percentiles, the chances
    of reaching each of `targets`, a histogram."""
    return [f"mean {d.mean:.7f}, SD {d.sd:.4f} (exact distribution)",
            "percentiles: " + ", ".join(f"p{q} {d.percentile(q)}" for q in PERCENTILES),
            "chances: " + ", ".join(f"P(>= {x}) {100 * d.at_least(x):.2f}%" for x in targets),
            *histogram_lines(d)]


# --------------------------------------------------------------------------- hints


def rolls_left_text(n: int) -> str:
    return "no rolls left" if n == 0 else f"{n} roll{'s' if n > 1 else ''} left"


def hint_layout(ev: Evaluation, player: str | None, method: str, goal: str | None, headings: list[str],
                rows: list[list[str]], notes: list[str] | None = None) -> list[str]:
    """The one text layout of every hint (plain, --distribution, --risk, --target, --to-win, play's `?`):
    the position with the method that valued it (and the goal, unless it is the expected score) on one
    line; under headings, one row per option, best first: its name, the value it is ranked by, how far
    that is from the best, then what the method adds; notes last. A script splits rows on two spaces."""
    from ..formats.render import table

    who = f"{player}: " if player else ""
    head = f"{who}{' '.join(map(str, ev.dice))}, {rolls_left_text(ev.rolls_left)} ({ev.rules.name}, {method}"
    head += f"; {goal})" if goal else ")"
    left = {0, 2} | {i for i, h in enumerate(headings) if h == "then play by"}
    return [head, *table([headings, *rows], left=left, indent="  "), *(notes or [])]


def option_label(ev: Evaluation, o: Any, then_box: bool = True) -> str:
    """An option as every hint names it: keep 3 3, keep all (stop rolling, then threes: 9), threes
    (column 2): 9 +35 bonus, pass. `then_box`: name the box a stop leads to (known for expected-score
    play; other goals may take another)."""
    rs = ev.rules
    if o.keep is not None:
        if len(o.keep) == len(ev.dice):
            if then_box and ev.stop_box is not None and ev.stop_box.box is not None:
                return f"keep all (stop rolling, then {rs.keys[ev.stop_box.box]}: {ev.stop_box.score})"
            return "keep all (stop rolling)"
        return "keep " + (" ".join(map(str, o.keep)) if o.keep else "nothing (reroll all)")
    return _box_text(rs, o, ": ", " bonus")


def behind(values: list[float], digits: int = 4) -> list[str]:
    """The values' distance from the first (the best): best, -1.4684, 0.0000 (tie)."""
    return ["best" if i == 0 else (f"-{values[0] - v:.{digits}f}" if round(values[0] - v, digits) > 0
                                   else f"{0:.{digits}f} (tie)") for i, v in enumerate(values)]


def behind_chances(chances: list[float]) -> list[str]:
    """Chances' distance from the first in percentage points, told apart as the chances are."""
    from ..formats.render import percents

    gaps = percents([max(chances[0] - c, 0.0) for c in chances])
    return ["best" if i == 0 else ("0 pp (tie)" if g == "0%" else f"-{g[:-1]} pp") for i, g in enumerate(gaps)]


def hint_lines(ev: Evaluation, top: int | None, player: str | None) -> list[str]:
    """A hint as text: every option (the best `top`) by expected final score (also `play`'s `?`)."""
    shown = ev.options if top is None else ev.options[:top]
    rows = [[option_label(ev, o), f"{o.value:.4f}", gap]
            for o, gap in zip(shown, behind([o.value for o in shown]), strict=True)]
    return hint_layout(ev, player, ev.kind, None, ["option", "expected", "vs best"], rows)


def strategy_text(theta: float | None) -> str:
    return "" if theta is None else "theta 0 (expected score)" if theta == 0 else f"theta {theta:g}"


def play_for_lines(ev: Evaluation, who: str | None, play: Any, top: int | None, measure: str,
                   goal: str) -> list[str]:
    """hint --target and --to-win as text: the options by `measure` (the chance of the goal), each with
    the risk strategy to play on by where the risk strategies answer, and then what each strategy's
    best option gives."""
    from ..formats.render import percents

    shown = play.ranked if top is None else play.ranked[:top]
    values = [v for _, v in shown]
    # every chance printed here (the rows and the strategies' note) told apart as one list
    shown_pct = percents(values + [pr for _, _, pr in play.by_theta])
    rows = [[option_label(ev, opt, then_box=False), pct, gap]
            for (opt, _), pct, gap in zip(shown, shown_pct, behind_chances(values), strict=False)]
    headings = ["option", measure, "vs best"]
    notes = []
    if play.method == "exact":
        method = "exact"
    elif play.method == "estimated":
        method = (f"estimated: the {len(play.ranked)} best options by expected score, each played on "
                  f"{play.games:,} times by {ev.kind if not ev.exact else 'optimal play'}")
        headings.append("±")
        for row, se in zip(rows, play.se, strict=False):
            row.append(f"{100 * se:.1f} pp")
    else:
        grid = ", ".join(f"{th:g}" for th, _, _ in play.by_theta)
        method = f"best of the risk strategies (theta {grid})"
        headings.append("then play by")
        for row, th in zip(rows, play.thetas, strict=False):
            row.append(strategy_text(th))
        each = shown_pct[len(values):]
        options = {option_label(ev, opt, then_box=False) for _, opt, _ in play.by_theta}
        if len(options) == 1:
            notes.append(f"  each strategy's best option is {options.pop()}: " + ", ".join(
                f"{strategy_text(th)} {pct}" for (th, _, _), pct in zip(play.by_theta, each, strict=True)))
        else:
            notes.append("  each strategy's best option: " + "; ".join(
                f"{strategy_text(th)}: {option_label(ev, opt, then_box=False)} {pct}"
                for (th, opt, _), pct in zip(play.by_theta, each, strict=True)))
    return hint_layout(ev, who, method, goal, headings, rows, notes)


def poker_hint_lines(target: Any, left: int, shown: list[Any]) -> list[str]:
    """hint --beat as text: the hand to beat, then each keep's chance to beat it (exactly) and to tie."""
    from ..formats.render import table

    lines = [f"beat {' '.join(map(str, target.dice))} ({target.category.replace('_', ' ')}), "
             f"{left} roll{'s' if left != 1 else ''} left"]
    rows = [("keep", "win", "tie")]
    for c in shown:
        keep = " ".join(map(str, c.keep)) if len(c.keep) < 5 else f"{' '.join(map(str, c.keep))} (stop)"
        rows.append((keep or "(reroll all)", f"{float(c.win):.2%} ({c.win})", f"{float(c.tie):.2%}"))
    return lines + table(rows, indent="  ")


# --------------------------------------------------------------------------- simulations


def _num(v: Any, digits: int = 2) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.{digits}f}"
    return f"{v:,}"


def _pct(v: Any) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def _stats_block(s: dict[str, Any], indent: str = "") -> list[str]:
    rows: list[tuple[str, str]] = [
        ("mean", _num(s["mean"])),
        ("SD", _num(s["sd"])),
        ("SEM", _num(s["sem"], 3)),
        ("min", _num(s["min"])),
        *[(k, _num(v)) for k, v in s["percentiles"].items()],
        ("max", _num(s["max"])),
        ("P(upper bonus)", _pct(s["p_upper_bonus"])),
    ]
    if s.get("yahtzee_points") is not None:
        rows.append((f"P(yahtzee box scored {s['yahtzee_points']})", _pct(s["p_yahtzee"])))
        rows.append(("mean extra-Yahtzee bonus", _num(s["mean_extra_bonus"])))
    from ..formats.render import table

    lines = table(rows, indent=indent)
    lines.append(f"{indent}mean per box:")
    lines += table([(k, f"{v:.2f}") for k, v in s["mean_per_box"].items()], indent=indent + "  ")
    lines += _histogram(s["histogram"], indent)
    return lines


def _histogram(h: dict[str, Any], indent: str = "", bar: int = 50) -> list[str]:
    from ..text import histogram

    bins = h["bins"]
    if not bins:
        return []
    return histogram(f"final scores (bins of {h['width']}):",
                     [(_bin_label(b, h["width"]), f"{b['count']:,}", b["count"]) for b in bins],
                     indent=indent, bar=bar, least=".", trim=True)


def _bin_label(b: dict[str, Any], width: int) -> str:
    return str(b["low"]) if width == 1 else f"{b['low']}-{b['high'] - 1}"


def _head(data: dict[str, Any], rules_name: str) -> str:
    """The run line: rules, strategies (labelled when approximate), games, seed."""
    what = ",".join(data["players"])
    if data["approximation"]:
        what += f" (approximate: {data['approximation']})"
    caps = {s["saved_rolls_cap"] for s in data["seats"] if s.get("saved_rolls_cap") is not None}
    if caps:
        what += f" (exact with at most {max(caps)} saved rolls)"
    goal = data["seats"][0].get("objective") if len(data["seats"]) == 1 else None
    if goal:
        what += f" ({goal})"
    return f"{rules_name}, {what}: {data['games']:,} games, seed {data['seed']}"


def summary_line(data: dict[str, Any], rules_name: str) -> str:
    """The whole report in one line, for stderr beside a pipeline (`--log-out -`): the run line, then
    each seat's mean and SD (and win rate in a match)."""
    if len(data["seats"]) == 1:
        s = data["seats"][0]
        return f"{_head(data, rules_name)}; mean {_num(s['mean'])}, SD {_num(s['sd'])} (the full summary with -v)"
    seats = "; ".join(f"{s['player']} mean {_num(s['mean'])}, wins {_pct(s['win_rate'])}" for s in data["seats"])
    return f"{_head(data, rules_name)}; {seats} (the full summary with -v)"


def simulation_text(data: dict[str, Any], rules_name: str) -> str:
    """The human report: run line, stats (each seat's for a match, after a standings table)."""
    from ..formats.render import table

    lines = [_head(data, rules_name)]
    if len(data["seats"]) == 1:
        lines += _stats_block(data["seats"][0])
        return "\n".join(lines) + "\n"
    rows = [("seat", "player", "mean", "SD", "wins", "ties")]
    for s in data["seats"]:
        rows.append((str(s["seat"]), s["player"], _num(s["mean"]), _num(s["sd"]), _pct(s["win_rate"]),
                     _pct(s["tie_rate"])))
    lines += table(rows, left={0, 1})
    for s in data["seats"]:
        lines.append("")
        lines.append(f"seat {s['seat']}: {s['player']}")
        lines += _stats_block(s, "  ")
    return "\n".join(lines) + "\n"


SEAT_COLUMNS = ("seat", "player", "strategy", "exact", "wins", "ties", "win_rate", "tie_rate", "mean", "sd", "sem",
                "min", "max", "p_upper_bonus", "p_yahtzee", "mean_extra_bonus")


def seat_rows(data: dict[str, Any]) -> list[list[Any]]:
    """`simulate --csv`: one row per seat with its headline figures (SEAT_COLUMNS)."""
    return [[str(s[c]).lower() if isinstance(s[c], bool) else s[c] for c in SEAT_COLUMNS] for s in data["seats"]]


# --------------------------------------------------------------------------- analyses


def move_text(rules: RuleSet, c: Choice, n_dice: int, rolled: bool = False) -> str:
    """A move in words: "keep 3 3", "reroll all", "stop (keep all)", "full_house 25", "pass".
    `rolled`: the move was a keep followed by a reroll (a keep of every die is then no stop)."""
    if c.keep is not None:
        if len(c.keep) == n_dice:
            return "keep all, reroll none" if rolled else "stop (keep all)"
        return "keep " + " ".join(map(str, c.keep)) if c.keep else "reroll all"
    return _box_text(rules, c, " ", "")


def _box_text(rules: RuleSet, c: Choice, between: str, bonus_word: str) -> str:
    """A box option (or a pass) in words: the box, its column on a sheet of several, `between`, the
    score and the extra bonus (hints say "threes: 9 +100 bonus", analyses "threes 9 +100")."""
    if c.is_pass:
        return "pass"
    assert c.box is not None
    col = f" (column {c.column + 1})" if rules.settings.columns > 1 else ""
    bonus = f" +{c.bonus}{bonus_word}" if c.bonus else ""
    return f"{rules.keys[c.box]}{col}{between}{c.score}{bonus}"


def _decision_rows(ds: Sequence[Decision], *, player: bool, game: bool) -> list[str]:
    from ..formats.render import table

    head = (["Where"] if game else []) + ["Turn", "Round", "Roll"] + (["Player"] if player else []) + [
        "Dice", "Made", "Value", "Best", "Value", "Loss"]
    rows = [head]
    left = {len(head) - 6, len(head) - 5, len(head) - 3} | ({len(head) - 7} if player else set()) | (
        {0} if game else set())
    for d in ds:
        n = len(d.dice)
        made = move_text(d.rules, d.made, n, rolled=d.kind == "keep") + (" *" if d.inferred else "")
        where = f"{d.file}:{d.line}: game {d.game}" if d.file else str(d.game)
        rows.append(([where] if game else []) + [str(d.index + 1), str(d.round), str(d.roll)]
                    + ([d.player] if player else [])
                    + [" ".join(map(str, d.dice)), made, f"{d.made.value:.4f}", move_text(d.rules, d.best, n),
                       f"{d.best.value:.4f}", f"{d.regret:.4f}"])
    return table(rows, left=left, indent="  ")


def _kind_line(exact: bool, source: str, rules_name: str, theta: float | None = None) -> str:
    if theta is not None:
        from .analyze import objective_dict

        goal = objective_dict(theta)["objective"]
        return f"{rules_name}: graded against the risk strategy theta {theta:g} ({goal}; {source})"
    if exact:
        return f"{rules_name}: graded against optimal play ({source})"  # "exact table", or with its saved-rolls cap
    return (f"{rules_name}: graded against APPROXIMATE optimal play ({source}); losses, luck and turning "
            "points are estimates, and so are win chances (no exact score distributions)")


def _values_line(theta: float | None) -> str:
    if theta:
        return ("Values are certainty equivalents of the final score, log E[exp(theta * final)] / theta, playing on "
                "by that strategy; loss = best - made.")
    return "Values are expected final scores (solitaire optimal play from there); loss = best - made."


LUCK_LINE = ("At start + luck - loss = total: a roll's luck is the value after it (best move) minus the value "
             "before it (the move made).")


WIN_LINE = ("Win chance lost: per decision, the chance to win after the best move for winning minus after the "
            "move made, against the opponents' sheets at that moment (a tie for first counts as a share).")


WIN_ESTIMATED = ("Estimated (no exact score distributions for these rules): each decision's chances from games "
                 "played on after the move made and after the best options in points, ± one standard error.")


def win_text(w: float | None, se: float | None = None) -> str:
    """Win probability lost, in percentage points ("-" where there are no win chances), with its
    standard error where it is estimated."""
    if w is None:
        return "-"
    return f"{100 * w:.2f} pp" if se is None else f"{100 * w:.2f} ± {100 * se:.2f} pp"


def turning_text(m: Moment | None) -> str:
    """A turning point in words: "turn 7 roll 1: luck +21.5446" or "turn 19 roll 1: loss 34.2996"."""
    if m is None:
        return "-"
    what = f"luck {m.points:+.4f}" if m.kind == "roll" else f"loss {-m.points:.4f}"
    return f"turn {m.index + 1} roll {m.roll}: {what}"


INFERRED_NOTE = ("* keep inferred: the log has no held dice, so the keep is taken as the dice common to "
                 "the two rolls; box choices are graded exactly")


def render_game(ga: GameAnalysis, *, verbose: bool = False, title: str | None = None) -> str:
    """A graded game as text: per player the total expected loss, decisions and the worst five
    (turn, round, roll, move made, best move, both values); every decision with `verbose`."""
    from ..formats.render import table

    rules = ga.rules
    lines = []
    if title:
        lines.append(title)
    lines.append(_kind_line(ga.exact, ga.source, rules.name, ga.theta))
    lines.append(_values_line(ga.theta))
    lines.append(LUCK_LINE)
    rows = [["Player", "At start", "Luck", "CE loss" if ga.theta else "Expected loss",
             "Total" if ga.game_over else "Expected now", "Decisions", "Inferred keeps", "Turning point"]]
    wins = any(p.win_cost is not None for p in ga.players)
    if wins:
        rows[0].insert(5, "Win chance lost")
    for p in ga.players:
        rows.append([p.name, f"{p.start:.4f}", f"{p.luck:+.4f}", f"{p.loss:.4f}", f"{p.end:.4f}", str(p.decisions),
                     str(p.inferred), turning_text(p.turning)])
        if wins:
            rows[-1].insert(5, win_text(p.win_cost, p.win_cost_se))
    lines.extend(table(rows, left={0, len(rows[0]) - 1}, indent="  "))
    if wins:
        lines.append(WIN_LINE)
        if any(p.win_cost_se is not None for p in ga.players):
            lines.append(WIN_ESTIMATED)
    any_inferred = any(p.inferred for p in ga.players)
    for p in ga.players:
        lines.extend(_worst_lines(p, game=False))
    if verbose and ga.decisions:
        lines.append("")
        lines.append("Every decision:")
        lines.extend(_decision_rows(ga.decisions, player=len(ga.players) > 1, game=False))
    if any_inferred:
        lines.append("")
        lines.append(INFERRED_NOTE)
    return "\n".join(lines)


def _worst_lines(p: PlayerSummary, game: bool) -> list[str]:
    """A player's worst decisions (with their game number when `game`), after a blank line."""
    worst = [d for d in p.worst if d.regret > 0]
    if not worst:
        return ["", f"{p.name}: " + ("every decision was optimal" if p.decisions else "no decisions yet")]
    return ["", f"{p.name}: worst decision{'s' if len(worst) > 1 else ''}",
            *_decision_rows(worst, player=False, game=game)]


def render_totals(t: Totals) -> str:
    """Batch totals as text: per player (by name) games, total and per-game expected loss, decisions,
    and the five worst decisions over all games (with their game number)."""
    from ..formats.render import table

    lines = [f"{t.games} game{'s' if t.games != 1 else ''} graded"]
    for rs, exact, src in t.sources.values():
        lines.append(_kind_line(exact, src, rs.name, t.theta))
    if t.theta:
        lines.append(_values_line(t.theta))
    rows = [["Player", "Games", "CE loss" if t.theta else "Expected loss", "Per game", "Luck", "Luck per game",
             "Decisions", "Inferred keeps"]]
    for p in t.players.values():
        rows.append([p.name, str(p.games), f"{p.loss:.4f}", f"{p.loss / p.games:.4f}" if p.games else "0",
                     f"{p.luck:+.4f}", f"{p.luck / p.games:+.4f}" if p.games else "0",
                     str(p.decisions), str(p.inferred)])
    if any(p.win_cost is not None for p in t.players.values()):
        rows[0].append("Win chance lost")
        for row, p in zip(rows[1:], t.players.values(), strict=True):
            row.append(win_text(p.win_cost, p.win_cost_se))
    lines.extend(table(rows, indent="  "))
    for p in t.players.values():
        lines.extend(_worst_lines(p, game=True))
    if any(p.inferred for p in t.players.values()):
        lines.append("")
        lines.append(INFERRED_NOTE)
    return "\n".join(lines)
