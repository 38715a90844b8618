"""What goes in and out: JSON (jsonio), game logs and score sheets (logs), their validation (validate),
replays and positions (replay), text tables (text). Pure: imports only errors and rules."""
