lib_a:
  test.nop
glob_in:
  test.nop:
    - require_in:
      - test: 'lib_*'
