include:
  - base
  - other
extend:
  svc:
    test:
      - succeed_with_changes
      - comment: extended
      - require:
        - test: dep2
      - watch_any:
        - test: dep2
      - listen:
        - test: dep2
  multi:
    test:
      - name: single
  the-name:
    test:
      - comment: found by name
  addmod:
    file:
      - managed
      - names:
        - /tmp/f1
        - /tmp/f2
  dep1:
    test:
      - order: 1
