include:
  - common
web_dir:
  file.directory:
    - name: {{ grains['tmp'] }}/web
    - require:
      - test: common_ok
web_note:
  test.succeed_with_changes:
    - name: note
