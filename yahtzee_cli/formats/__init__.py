"""What goes in and out: JSON (jsonio), game logs and score sheets (logs), their validation (validate),
replays and positions (replay), poker matches (poker_log), tallies, reading many inputs (inputs) and
the one table renderer (render). Pure: imports only the bottom modules and rules."""
