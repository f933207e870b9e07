pkgs_{{ sls|replace('.', '_') }}:
  test.nop:
    - name: "{{ sls }}|{{ slspath }}|{{ tpldir }}|{{ tplfile }}|{{ saltenv }}|{{ sls_path }}|{{ slsdotpath }}"
