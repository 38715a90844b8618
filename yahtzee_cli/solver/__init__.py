"""The numeric engine (numpy, numba), loaded only when a table is built or games are played: score
tables, compiled rule functions, kernels, the exact solver, the approximate fit, named strategies.

Glossary of the arrays the kernels take (R rolls, K keeps, B boxes, V variants, n dice); the kernels
take a rule set's as one bundle, tables.RuleArrays (built once per rule set by tables.rule_arrays), and
run a turn with within_turn's kernels:

* dice (tables.Dice): `rolls` [R, n] sorted; `roll_prob` [R]; `keep_index` [7**6] base-7 face counts
  -> keep; `keep_of_roll` [R], `roll_of_keep` [K] (-1 below n dice); `add_die`/`drop_die` [K, 6]
  the keep with one die of a face added/removed (-1 none), laid out from strategy.keeps.
* scores (tables.Scores): `natural` [R, B] and `joker` [R, B] (rules.natural_score, joker_value),
  `natT`/`jokT` their float transposes [B, R]; `yroll` (`yahtzee_roll`) [R] every die alike;
  `own_bit` [R] a Yahtzee roll's own upper box bit; `bonus_rolls` the rolls that can earn the extra
  bonus; `base_roll` a roll that is no Yahtzee; `lower_bits` mask of the lower boxes.
* states (strategy.space.StateSpace, one per rule set; exact.Layout adds the table's rows): a column
  at a turn start is (filled `mask`, `y`, `u`), keyed `space.key(mask, y, u)`: `u` the upper total
  capped at `t`, `y` 1 while the Yahtzee box holds its full points
  and extra bonuses exist (`nyt` 2, else 1; `ybit` the Yahtzee box's bit); `masks` reachable masks
  by popcount (`layer_ptr`), `midx` [2**B] mask -> row; `sub_of` [2**B] mask -> its set of filled
  upper boxes (StateSpace.upper_set); `ulist`/`ucount` the upper totals computed per upper
  set, `dlist`/`dcount` the totals that cannot reach the bonus any more (copies of one of them).
* variants (tables.box_variants): how a written score moves the state: `var_nat`/`var_jok` [R, B]
  (`vnatT`/`vjokT` their uint8 transposes) the variant of the natural/joker score, `nvar` [B],
  `du` [B, V] the upper total it adds, `yn` [B, V] the new y (-1 unchanged).
* values: `W` [rows, nyt * (t + 1)] expected remaining score, `W2` its second moment; a value to go
  (value_to_go.ValueToGo) is `W` with `midx`, or the heuristic `h` [B + 1, B] per open box by open count, `G`
  [upper sets, t + 1] the upper bonus's expected share, `yh` [B + 1] by open boxes while y = 1.
"""
