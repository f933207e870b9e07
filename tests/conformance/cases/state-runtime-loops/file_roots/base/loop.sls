a:
  test.nop:
    - require:
      - test: b
b:
  test.nop:
    - require:
      - test: c
c:
  test.nop:
    - require:
      - test: a
self_by_name:
  test.nop:
    - name: selfname
    - require:
      - test: selfname
ok:
  test.nop
after_loop:
  test.nop:
    - require:
      - test: ok
