from yahtzee_cli.cli import main

main()
