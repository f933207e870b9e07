a1:
  test.nop:
    - require_in:
      - sls: a
      - test: a2
    - watch_in:
      - a2
      - a3-name
a2:
  test.nop
a3:
  test.nop:
    - name: a3-name
    - onchanges:
      - a1
