{% set state = 'svn' %}
{% include "php/installed.jinja" %}
