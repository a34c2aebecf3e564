#!/bin/sh
# bad-one.sh FILE - runs pathgen generate with one bad mapping file (the
# TST_CORPUS entry pathgen_bad_input, tests/pathgen/bad-input/): FILE takes
# the place its name says (cluster-*, app-*, mapping-*), good example files
# the others, so the first line of stderr is FILE's error.
f=$1
E=examples/pathgen
case $(basename "$f") in
cluster-*) exec bin/pathgen --cluster "$f" --app $E/8w.app --mapping $E/8w.mapping >/dev/null ;;
app-*)     exec bin/pathgen --cluster $E/8w.cluster --app "$f" --mapping $E/8w.mapping >/dev/null ;;
mapping-*) exec bin/pathgen --cluster $E/multicluster.cluster --app $E/multicluster.app \
                --mapping "$f" >/dev/null ;;
*) echo "bad-one.sh: $f: name must start with cluster-, app- or mapping-" >&2; exit 3 ;;
esac
