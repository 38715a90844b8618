"""`hint`'s five modes, as one request: the plain ranking of a position's options by expected final
score, the exact chances of reaching a score (--distribution, --risk), play for a target score
(--target), play to win against the other players of a game (--to-win), and poker dice (--beat).

`advise` checks the request against the position and the rules (the preconditions of each mode: an
exact one-column rule set for the chances, must_zero for exact play for a goal, rolls left within the
turn's), evaluates it, and gives what a front end shows: the JSON record, the ranking's rows and the
text (play.report). The request's fields are named as the command's options, and so are the messages
of the requests it refuses (errors.BadRequest, a usage error, unless the position itself is the
problem)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BadRequest, InputError, MissingFile, PositionError, RulesError, YahtzeeError
from ..store.artifact import using_cache
from .solving import check_plot, plot_distribution, risk_theta

if TYPE_CHECKING:
    from ..formats.replay import Position
    from ..rules.engine import Column, RuleSet
    from ..strategy.turn import Evaluation

Say = Callable[[str], None]
Stage = Callable[[str], None]

HINT_CSV_HEAD = ["rank", "player", "dice", "rolls_left", "move", "keep", "box", "column", "score", "bonus", "value",
                 "regret", "exact"]


@dataclass(frozen=True)
class HintRequest:
    """A position to advise and how: the `dice` showing (words: '1 3 3 5 6' or '13356'), `rolls_left`
    (default: what the turn has), on an empty sheet of `rules` with `sets`, or `sheet`/`log` (a file)
    for `player`; `saved` rolls; `top` options shown; the mode: `distribution`, `target`, `risk`,
    `to_win` or `beat` (a poker hand); `plot`: a file to draw the distributions into."""

    dice: tuple[str, ...] = ()
    rolls_left: int | None = None
    top: int | None = None
    rules: str | None = None
    sets: tuple[str, ...] = ()
    sheet: Path | None = None
    log: Path | None = None
    player: str | None = None
    saved: int | None = None
    distribution: bool = False
    target: int | None = None
    risk: float | None = None
    to_win: bool = False
    beat: str | None = None
    plot: Path | None = None


@dataclass(frozen=True)
class Advice:
    """A hint as every front end shows it: its JSON `record`, the ranking's `rows` under HINT_CSV_HEAD
    (the plain ranking only: None for the other modes) and the `text` for people."""

    record: dict[str, Any]
    text: str
    rows: list[list[Any]] | None = None


@dataclass(frozen=True)
class _Asked:
    """A checked request on its position: rules, columns, dice, rolls left, saved rolls, whose turn."""

    rules: RuleSet
    columns: list[Column]
    faces: list[int]
    left: int
    saved: int
    who: str | None
    theta: float | None


def advise(req: HintRequest, say: Say | None = None, stage: Stage | None = None) -> Advice:
    """The hint `req` asks for (see the module's doc); `say` hears the library's notes, `stage` the name
    of each long step as it starts."""
    if req.to_win:
        if req.log is None:
            raise BadRequest("{to_win} needs the game: give it with {log} FILE (the other players' sheets are the "
                             "opponents)", options=("to_win", "log"))
        if req.distribution or req.target is not None or req.risk is not None or req.beat is not None:
            raise BadRequest("{to_win} ranks the options by the chance to win; leave out {distribution}, {target}, "
                             "{risk} and {beat}", options=("to_win", "distribution", "target", "risk", "beat"))
    if req.beat is not None:
        return _poker(req)
    check_plot(req.plot, req.distribution)
    rs, columns, who, pos = _position(req)
    if pos is not None and pos.finished:
        raise PositionError(f"{pos.player}'s sheet is full: the game is over")
    if req.saved is not None and not rs.settings.saved_rolls:
        raise BadRequest(f"{{saved}} counts rolls saved from earlier turns, which {rs.name} has none of "
                         "(saved_rolls=off); leave it out or add {set} saved_rolls=on", options=("saved", "set"))
    n_saved = req.saved if req.saved is not None else (pos.saved if pos is not None else 0)
    if rs.settings.saved_rolls and n_saved > rs.settings.saved_cap:
        raise BadRequest(f"{{saved}} takes 0-{rs.settings.saved_cap} here (saved_rolls_cap={rs.settings.saved_cap}), "
                         f"got {n_saved}", options=("saved",))
    from ..rules.engine import most_saved, parse_dice, rolls_allowed
    from ..strategy.choice import plan

    if rs.settings.saved_rolls and req.saved is not None and len(columns) == 1:
        filled = bin(columns[0].filled_mask).count("1")
        most = most_saved(rs, filled)
        if most is not None and n_saved > most:
            raise BadRequest(f"{{saved}} takes 0-{most} with {filled} boxes filled (a turn saves at most 2 rolls; "
                             f"give the sheet with {{sheet}} or {{log}}), got {n_saved}",
                             options=("saved", "sheet", "log"))

    # the stock of saved rolls is spent within the turn: after its first roll, 2 + N rolls are left
    allowed = rolls_allowed(rs, n_saved) - 1
    if req.dice:
        faces = parse_dice(list(req.dice))
        left = allowed if req.rolls_left is None else req.rolls_left
    elif pos is not None and pos.dice is not None:
        faces = list(pos.dice)
        left = pos.rolls_left if req.rolls_left is None else req.rolls_left
    else:
        raise BadRequest("give the dice (the position has no turn in progress)")
    if not 0 <= left <= allowed:
        choices = "2|1|0" if allowed == 2 else f"0-{allowed}"
        raise BadRequest(f"{{rolls_left}} takes {choices} here, got {left}", options=("rolls_left",))
    rs.check_dice(faces)
    theta = risk_theta(rs, req.risk)
    if not rs.settings.must_zero and theta:
        raise BadRequest("{risk} needs must_zero on (a pass would repeat a turn, which the risk strategies leave "
                         "out); {distribution}, {target} and {to_win} work without",
                         options=("risk", "distribution", "target", "to_win"))
    # play for a target or to win by games played on where exact play for it has no distributions
    from .odds import unavailable

    estimate = (req.target is not None or req.to_win) and not req.distribution and theta is None and (
        not rs.settings.must_zero or unavailable(rs) is not None)
    opponents: list[tuple[str, Any]] = []
    if req.to_win:
        assert req.log is not None
        opponents = _opponents(req.log, who, say, stage, estimate)
    chances = req.distribution or req.target is not None or theta is not None
    if (chances or req.to_win) and not estimate:
        if rs.settings.columns != 1 or not plan(rs).exact:
            raise BadRequest("{distribution}, {target} and {risk} need a one-column rule set with an exact table",
                             options=("distribution", "target", "risk"))
        from ..errors import NotExact
        from ..solver.distribution import check_size

        try:
            check_size(rs)
        except NotExact as exc:
            raise BadRequest("{distribution}, {target} and {risk}: " + str(exc),
                             options=("distribution", "target", "risk")) from None
        if theta is not None and req.target is not None and not req.distribution:
            raise BadRequest("{target} picks its own risk strategy; leave out {risk} (or add {distribution})",
                             options=("target", "risk", "distribution"))
    from .hint import hint as evaluate
    from .hint import saved_rolls_advice

    advice = saved_rolls_advice(rs)
    if advice is not None and say is not None:
        say(advice)
    asked = _Asked(rs, columns, faces, left, n_saved, who, theta)
    if stage is not None:
        stage("preparing the hint")
    with using_cache():
        ev = evaluate(rs, columns, faces, left, n_saved, say=say)
    if estimate:
        return _estimated(req, asked, ev, opponents, say)
    if req.to_win:
        return _to_win(req, asked, ev, opponents, say)
    if chances:
        return _chances(req, asked, ev, say)
    rec = ev.to_dict(req.top)
    if who is not None:
        rec["player"] = who
    from .report import hint_lines

    return Advice({"type": "hint", **rec}, "\n".join(hint_lines(ev, req.top, who)) + "\n",
                  _hint_rows(ev, req.top, who))


def _poker(req: HintRequest) -> Advice:
    """hint --beat: every keep of a poker-dice hand ranked by the exact chance that the final hand beats
    the hand given (then ties it)."""
    if req.rules or req.sets or req.sheet or req.log or req.player or req.saved is not None:
        raise BadRequest("{beat} is poker dice, played without a score sheet: leave out {rules}, {set}, {sheet}, "
                         "{log}, {player} and {saved}",
                         options=("beat", "rules", "set", "sheet", "log", "player", "saved"))
    if not req.dice:
        raise BadRequest("give the dice showing, e.g. yahtzee hint 13356 {beat} 44422", options=("beat",))
    if req.distribution or req.target is not None or req.risk is not None:
        raise BadRequest("{beat} ranks keeps by the chance of beating a hand; leave out {distribution}, {target} "
                         "and {risk}", options=("beat", "distribution", "target", "risk"))
    assert req.beat is not None
    from ..rules.engine import parse_dice
    from ..rules.poker import keep_chances, rank_hand
    from .report import poker_hint_lines

    left = 2 if req.rolls_left is None else req.rolls_left
    faces = parse_dice(list(req.dice))
    target = rank_hand(parse_dice([req.beat]))
    chances = keep_chances(faces, target.dice, left)
    shown = chances[:req.top] if req.top else chances
    rec = {
        "type": "hint",
        "dice": sorted(faces),
        "beat": {"dice": list(target.dice), "category": target.category},
        "rolls_left": left,
        "keeps": [{"keep": list(c.keep), "reroll": 5 - len(c.keep), "win": float(c.win), "win_exact": str(c.win),
                   "tie": float(c.tie), "tie_exact": str(c.tie)} for c in shown],
    }
    return Advice(rec, "\n".join(poker_hint_lines(target, left, shown)) + "\n")


class _Worded(PositionError):
    """A refusal worded in full where a game file is read (not prefixed with the option)."""


@contextmanager
def _reading(option: str) -> Iterator[None]:
    """Reading the game file an option names ("sheet", "log"): a missing file is worded as every command
    words one, a bad setting is the settings' usage error, anything else wrong with the file is the
    option's problem."""
    try:
        yield
    except (MissingFile, _Worded):
        raise
    except RulesError as exc:
        raise RulesError("{set}: " + str(exc), code=exc.code, options=("set",)) from None
    except YahtzeeError as exc:
        raise InputError(f"{{{option}}}: {exc}", code=exc.code, options=(option,)) from None


def _position(req: HintRequest) -> tuple[RuleSet, list[Column], str | None, Position | None]:
    """Rules, columns, player name and (a file's) the replay Position."""
    from ..rules.engine import Column

    if req.sheet is None and req.log is None:
        if req.player is not None:
            raise BadRequest("{player} goes with {log} (or a sheet with several players)", options=("player", "log"))
        from ..formats.config import rules_for

        rs = rules_for(req.rules, req.sets)
        return rs, [Column.empty(rs) for _ in range(rs.settings.columns)], None, None
    if req.sheet is not None and req.log is not None:
        raise BadRequest("give {sheet} or {log}, not both", options=("sheet", "log"))
    if req.rules is not None:
        raise BadRequest("{sheet}/{log} name their own rules; leave out {rules} (change settings with {set})",
                         options=("sheet", "log", "rules", "set"))
    from ..errors import GameError
    from ..formats.logs import read_file, read_last_game
    from ..formats.replay import position_from_log, position_from_sheet
    from ..rules.engine import parse_setting

    overrides = dict(parse_setting(s) for s in req.sets)
    path = str(req.sheet if req.sheet is not None else req.log)
    opt = "sheet" if req.sheet is not None else "log"
    where: str | None = None  # a game that is not valid, where validate says it is: file:LINE: game N
    with _reading(opt):
        if req.sheet is not None:
            pos = position_from_sheet(read_file(path), req.player, overrides=overrides or None)
        else:  # a game file of `play` and `log`: the game in play is the last one
            doc = read_last_game(path)
            _in_play(path, doc.data, doc.index)
            try:
                pos = position_from_log(doc.data, req.player, overrides=overrides or None)
            except GameError as exc:
                first = exc.problems[0] if exc.problems else None
                line = doc.line_of(first.path) if first is not None else doc.line
                where = f"{'<stdin>' if path == '-' else path}:{line}: game {doc.index}: {first or exc}"
    if where is not None:
        raise InputError(f"{{{opt}}}: {where}", options=(opt,))
    return pos.rules, list(pos.columns), pos.player, pos


def _in_play(path: str, data: Any, games: int) -> None:
    """A game file's last game is the one to advise: refused when it is over or was ended."""
    from ..formats.logs import is_abandoned
    from ..formats.replay import replay_game

    which = f"the last of its {games} games" if games > 1 else "its game"
    if is_abandoned(data):
        raise _Worded(f"{path}: {which} was ended unfinished (abandoned); there is no game in play to advise")
    if games > 1 and replay_game(data).game_over:
        raise _Worded(f"{path}: {which} is over; there is no game in play to advise")


def _hint_rows(ev: Evaluation, top: int | None, player: str | None) -> list[list[Any]]:
    """hint's rows (--csv): one per option, best first: the move (keep, box or pass), its value and
    regret (as --json rounds them), the position's dice and whether the values are exact."""
    rs = ev.rules
    dice = " ".join(map(str, ev.dice))
    rows = []
    for rank, o in enumerate(ev.options if top is None else ev.options[:top], 1):
        move = "keep" if o.keep is not None else "pass" if o.is_pass else "box"
        box = rs.keys[o.box] if move == "box" and o.box is not None else None
        keep = " ".join(map(str, o.keep)) if o.keep is not None else None
        rows.append([rank, player, dice, ev.rolls_left, move, keep, box,
                     o.column + 1 if box is not None and rs.settings.columns > 1 else None,
                     o.score if box is not None else None, o.bonus if box is not None else None,
                     round(o.value, 4), round(o.regret, 4), ev.exact])
    return rows


def _chances(req: HintRequest, a: _Asked, ev: Evaluation, say: Say | None) -> Advice:
    """hint --distribution / --risk / --target: exact chances of reaching a score from the position
    (play.hint.rank_by_risk, play.hint.play_for_target)."""
    from ..formats.render import percents
    from .hint import play_for_target, rank_by_risk
    from .report import behind, hint_layout, option_label, play_for_lines, summary
    from .simulate import objective, risk_name

    rs = a.rules
    head: dict[str, Any] = {"rules": rs.record(), "dice": list(ev.dice), "rolls_left": ev.rolls_left, "exact": True,
                            "approximation": None}
    if a.who is not None:
        head["player"] = a.who
    if not (req.distribution or a.theta is not None):
        assert req.target is not None
        with using_cache():
            play = play_for_target(rs, a.columns[0], ev, req.target, say=say)
        _say_method(play, say)
        goal = f"maximise P(final >= {req.target})"
        rec = _play_record({**head, "target": req.target, "objective": goal}, rs, play, req.top, "probability")
        return Advice(rec, "\n".join(play_for_lines(ev, a.who, play, req.top, f"P(final >= {req.target})",
                                                    goal)) + "\n")
    with using_cache():
        ranking = rank_by_risk(rs, a.columns[0], ev, a.theta or 0.0, req.target, req.top, say=say)
    theta, T = ranking.theta, ranking.target
    objective_text = objective(risk_name(theta))
    ranked: dict[str, Any] = {**head, "target": T, "risk": theta, "objective": objective_text, "options": []}
    for o, c, v in ranking.ranked:
        item = o.move_dict(rs)
        item.update({"value": round(v, 4), "probability": c.at_least(T), "median": c.dist.percentile(50),
                     "sd": round(c.dist.sd, 4)})
        if req.distribution:
            item["pmf"] = summary(c.dist)["pmf"]
        ranked["options"].append(item)
    names = [option_label(ev, o, then_box=not theta) for o, _, _ in ranking.ranked]
    if req.distribution:
        from .report import rolls_left_text

        where = f"{' '.join(map(str, ev.dice))}, {rolls_left_text(ev.rolls_left)}"
        plot_distribution(req.plot, [(name, item["pmf"]) for name, item in zip(names, ranked["options"], strict=True)],
                          T, f"{where} ({rs.name}, exact)", say)
    chances = percents([item["probability"] for item in ranked["options"]])
    gaps = behind([v for _, _, v in ranking.ranked])
    rows = [[name, f"{item['value']:.4f}", gap, chance, str(item["median"]), f"{item['sd']:.1f}"]
            for name, item, gap, chance in zip(names, ranked["options"], gaps, chances, strict=True)]
    label = "certainty equivalent" if theta else "expected"
    text = "\n".join(hint_layout(ev, a.who, "exact", objective_text if theta else None,
                                 ["option", label, "vs best", f"P(final >= {T})", "median", "SD"], rows)) + "\n"
    return Advice({"type": "hint", **ranked}, text)


def _play_record(head: dict[str, Any], rs: RuleSet, play: Any, top: int | None, key: str) -> dict[str, Any]:
    """hint --target's and --to-win's record: the best option, the options by the chance of the goal
    (`key` in the record), each with the risk strategy to play on by, and each strategy's best option."""
    p, best_theta, o = play.best
    shown = play.ranked if top is None else play.ranked[:top]
    rec = {"type": "hint", **head, "method": play.method, "theta": best_theta,
           "best": {**o.move_dict(rs), key: p},
           "options": [{**opt.move_dict(rs), key: v, "theta": th}
                       for (opt, v), th in zip(shown, play.thetas, strict=False)],
           "by_theta": [{"theta": th, **opt.move_dict(rs), key: pr} for th, opt, pr in play.by_theta]}
    if play.method == "estimated":  # each chance with its standard error, and the games behind it
        rec["best"]["se"] = round(play.se[0], 6)
        for item, se in zip(rec["options"], play.se, strict=False):
            item["se"] = round(se, 6)
        rec["games"] = play.games
    return rec


def _say_method(play: Any, say: Say | None) -> None:
    """One note when exact play would take too long here and the risk strategies answer."""
    if play.method != "exact" and play.seconds != float("inf") and say is not None:
        say(f"exact play would take about {play.seconds:,.0f} s of CPU from this position: the best of the "
            "risk strategies answers (\"method\": \"risk_strategies\")")


def _estimated(req: HintRequest, a: _Asked, ev: Evaluation, opponents: list[tuple[str, Any]],
               say: Say | None) -> Advice:
    """hint --target / --to-win where the rules have no exact distributions for it: the best options by
    expected score, each valued by games played on after it (play.estimated_play)."""
    import numpy as np

    from ..solver.winning import share_of_first
    from .estimated_play import play_estimated
    from .report import play_for_lines

    rs = a.rules
    head: dict[str, Any] = {"rules": rs.record(), "dice": list(ev.dice), "rolls_left": ev.rolls_left,
                            "exact": False, "approximation": ev.source if not ev.exact else None, "player": a.who}
    if req.to_win:
        dists = [d for _, d in opponents]
        u = share_of_first(dists, max(d.lo + len(d.pmf) for d in dists))
        names = [n for n, _ in opponents]
        against = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        goal, key, measure = f"maximise P(win) against {against}; a tie counts as a share", "win_probability", "P(win)"
        head.update({"opponents": names, "objective": "maximise P(win)"})
    else:
        assert req.target is not None
        # 1 from the target on (as exact play for it has it): all ones at or below 0, none out of reach
        u = np.ones(1) if req.target <= 0 else np.zeros(1 if req.target > rs.score_bound else req.target + 1)
        if 0 < req.target <= rs.score_bound:
            u[-1] = 1.0
        goal, key, measure = f"maximise P(final >= {req.target})", "probability", f"P(final >= {req.target})"
        head.update({"target": req.target, "objective": goal})
    play = play_estimated(rs, a.columns, a.saved, ev, u, say=say)
    rec = _play_record(head, rs, play, req.top, key)
    return Advice(rec, "\n".join(play_for_lines(ev, a.who, play, req.top, measure, goal)) + "\n")


def _opponents(log: Path, who: str | None, say: Say | None, stage: Stage | None,
               estimate: bool = False) -> list[tuple[str, Any]]:
    """The other players of the --log game as (name, final-score pmf from where they stand: exact, or
    from games played on when `estimate`); refused for a solo game."""
    from ..formats.logs import read_last_game
    from ..formats.replay import replay_game
    from .odds import player_pmf

    with _reading("log"):
        rp = replay_game(read_last_game(str(log)).data)
    others = [i for i, p in enumerate(rp.players) if p.name != who]
    if not others:
        raise PositionError(f"{{to_win}}: {who} plays alone in {log}; there is no one to beat (use {{target}})",
                            options=("to_win", "target"))
    if stage is not None:
        stage("computing the other players' final-score distributions")
    if estimate:
        from .estimated_play import opponents as played_on

        return list(zip([rp.players[i].name for i in others], played_on(rp, others, say), strict=True))
    with using_cache():
        return [(rp.players[i].name, player_pmf(rp, i, say)) for i in others]


def _to_win(req: HintRequest, a: _Asked, ev: Evaluation, opponents: list[tuple[str, Any]],
            say: Say | None) -> Advice:
    """hint --to-win: the options by the chance to win (a tie a share) against the opponents' pmfs."""
    from .hint import play_to_win
    from .report import play_for_lines

    rs = a.rules
    with using_cache():
        play = play_to_win(rs, a.columns[0], ev, [d for _, d in opponents], say=say)
    _say_method(play, say)
    names = [n for n, _ in opponents]
    against = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    goal = f"maximise P(win) against {against}; a tie counts as a share"
    head = {"rules": rs.record(), "dice": list(ev.dice), "rolls_left": ev.rolls_left, "exact": True,
            "approximation": None, "player": a.who, "opponents": names, "objective": "maximise P(win)"}
    return Advice(_play_record(head, rs, play, req.top, "win_probability"),
                  "\n".join(play_for_lines(ev, a.who, play, req.top, "P(win)", goal)) + "\n")
