lib_a:
  test.nop
lib_b:
  test.nop
glob_req:
  test.nop:
    - require:
      - test: 'lib_*'
      - 'lib_?'
      - sls: 'glob*'
    - watch:
      - test: 'lib_[ab]'
