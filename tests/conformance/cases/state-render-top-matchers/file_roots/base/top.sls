base:
  '*':
    - pillarshow
  'web*.example.com':
    - glob_hit
  '^web\d\.example\.com$':
    - match: pcre
    - pcre_hit
  'db1,web1.example.com':
    - match: list
    - list_hit
  'roles:cache':
    - match: grain
    - grain_hit
  'os:Deb.*':
    - match: grain_pcre
    - grain_pcre_hit
  'tier:prod':
    - match: pillar
    - pillar_prod
  'tier:cli':
    - match: pillar
    - pillar_cli
  'G@os:Debian and not I@tier:testing':
    - compound_hit
  'webs':
    - match: nodegroup
    - nodegroup_hit
  '10.1.0.0/16':
    - match: ipcidr
    - ipcidr_hit
  'nomatch*':
    - never
  '*.example.com':
    - match: glob
    - glob_hit
    - {dev: devsls}
    - {nosuchenv: whatever}
    - {match: glob}
