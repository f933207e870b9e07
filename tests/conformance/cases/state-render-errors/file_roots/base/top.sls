base:
  '*':
    - conflict_a
    - conflict_b
    - good
    - missing_one
prod:
  '*':
    - good
