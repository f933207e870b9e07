unknown_fun:
  test.bogus
unknown_mod:
  nomod.fun
bad_umask:
  test.nop:
    - umask: 0999
missing:
  test.nop:
    - require:
      - test: nothere
      - nothing_by_id
    - watch:
      - sls: nosuch
ok:
  test.nop
glob_req:
  test.nop:
    - require:
      - test: o*
glob_id:
  test.nop:
    - require:
      - id: unknown_f*
sls_req:
  test.nop:
    - require:
      - sls: err
