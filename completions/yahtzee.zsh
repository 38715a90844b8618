
#compdef yahtzee

_yahtzee_completion() {
  eval $(env _TYPER_COMPLETE_ARGS="${words[1,$CURRENT]}" _YAHTZEE_COMPLETE=complete_zsh yahtzee)
}

compdef _yahtzee_completion yahtzee

