"""The rules: box kinds, rule sets and presets, legality, bonuses, sheet arithmetic (engine), poker
dice (poker). Pure Python: the single source of truth every other layer asks."""
