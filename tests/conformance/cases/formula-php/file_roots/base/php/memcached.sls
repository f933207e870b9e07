{% set state = 'memcached' %}
{% include "php/installed.jinja" %}
