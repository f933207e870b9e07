include:
  - glob1
  - glob2
  - plain
  - keepme
exclude:
  - sls: 'glob*'
  - plain
  - id: kill_me
main_state:
  test.nop
extend:
  keep_state:
    test:
      - comment: extended by main
