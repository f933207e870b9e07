color: blue
extra: testing-only
