"""Plant rules (GenXY rule files with inheritance), their lints and Markov figures, and growth."""
