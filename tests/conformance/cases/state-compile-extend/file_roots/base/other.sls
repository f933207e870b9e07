extend:
  dep2:
    test:
      - comment: from other
      - require:
        - test: dep1
