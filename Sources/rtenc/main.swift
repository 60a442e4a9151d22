// Replaced by the CLI (RTEncCommand) in the foundation work.
print("rtenc")
