pillar_view:
  test.nop:
    - name: "tier={{ pillar.get('tier') }} color={{ salt['pillar.get']('color', 'none') }}"
