include:
  - common
web_dir:
  test.succeed_with_changes:
    - name: webdir
    - require:
      - test: common_ok
web_note:
  test.succeed_with_changes:
    - name: note
