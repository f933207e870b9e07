multi: from-multi
multi_saltenv: {{ saltenv }}
