svc:
  test.succeed_without_changes:
    - comment: original
    - require:
      - test: dep1
    - watch:
      - test: dep1
    - size: 1
dep1:
  test.nop
dep2:
  test.nop
multi:
  test.nop:
    - names:
      - m1
      - m2
byname:
  test.nop:
    - name: the-name
addmod:
  test.nop
