#!/usr/bin/env bash
# Makes each fuzz target's seed inputs from the real pages and responses in the corpus and the
# project's recordings, in the input shape each target reads. They are third-party files:
# they go under Fuzz/.build (ignored), never into the repository.
# Usage: Fuzz/seeds.sh CORPUS RECORDINGS OUT
set -euo pipefail
corpus="$1"
recordings="$2"
out="$3"
rm -rf "$out"
mkdir -p "$out"/{query,url,html-scanner,script-json,har,charset,probe,probe-readers}

# probe: the project's own small media files (one per format the readers know).
cp "$(dirname "$0")/Seeds/probe/"* "$out/probe/"
# probe-readers: the same files as that target reads them, a reader's number first and its magic
# taken out (the target puts it back).
for file in "$(dirname "$0")/Seeds/probe/"*; do
    name="$(basename "$file")"
    case "$name" in
        *.gif) { printf '\000'; tail -c +7 "$file"; } ;;
        *.png) { printf '\001'; tail -c +9 "$file"; } ;;
        *.webp) { printf '\002'; head -c 8 "$file" | tail -c 4; tail -c +13 "$file"; } ;;
        *.mp4) { printf '\003'; head -c 4 "$file"; tail -c +9 "$file"; } ;;
        *.webm) { printf '\004'; tail -c +5 "$file"; } ;;
        *.m3u8) { printf '\005'; tail -c +9 "$file"; } ;;
        *.mpd) { printf '\006'; cat "$file"; } ;;
        *) continue ;;
    esac > "$out/probe-readers/$name"
done

pages() { find "$corpus/generic" "$corpus/sites" -name '*.html' | sort; }
responses() { find "$corpus/sites" -name '*.json' ! -name manifest.json | sort; }

# html-scanner: flag byte 0 (no declared charset, thinned feed), eight seed bytes, the page.
# charset: declared-charset byte, eight seed bytes, the start of the page.
n=0
while read -r page; do
    n=$((n + 1))
    { printf '\000\000\000\000\000\000\000\000\007'; head -c 262135 "$page"; } > "$out/html-scanner/$n"
    { printf '\000\000\000\000\000\000\000\000\003'; head -c 16375 "$page"; } > "$out/charset/$n"
    head -c 65536 "$page" > "$out/script-json/page-$n"
done < <(pages)
# The two pages whose declared charset lies, with the declaration as a header too.
for page in generic/qq.html sites/other/pikabu-story-charset-mismatch.html; do
    [ -f "$corpus/$page" ] || continue
    for declared in 2 3; do
        n=$((n + 1))
        { printf "\\00$declared"'\000\000\000\000\000\000\000\001'; head -c 16375 "$corpus/$page"; } > "$out/charset/lie-$n"
    done
done

n=0
while read -r response; do
    n=$((n + 1))
    head -c 65536 "$response" > "$out/script-json/response-$n"
done < <(responses)

# har: every recording and case file.
n=0
while read -r file; do
    n=$((n + 1))
    cp "$file" "$out/har/$n"
done < <(find "$recordings" \( -name '*.har' -o -name '*.case.json' \) | sort)

# query: what the cases ask for, and the query language's shapes.
n=0
while read -r input; do
    n=$((n + 1))
    printf '%s' "$input" > "$out/query/case-$n"
done < <(grep -rhoE '"input" *: *"[^"]*"' "$recordings" | sed -E 's/^"input" *: *"//; s/"$//' | sort -u)
for q in '!giphy cats rating:g lang:"en us"' '!tenor "two words" limit:25' 'cats' '//i.imgur.com/x.gif' \
    'https://giphy.com/gifs/x-12XMGIWtrHBl5e' 'key:"quoted value" !later term' '"" !x y:'; do
    n=$((n + 1))
    printf '%s' "$q" > "$out/query/shape-$n"
done

# url: `base\nreference`, with URLs and references the corpus pages and responses hold.
n=0
while read -r reference; do
    n=$((n + 1))
    printf 'https://example.com/a/b/page.html?q=1\n%s' "$reference" > "$out/url/$n"
done < <({ pages; responses; } | xargs cat 2>/dev/null \
    | LC_ALL=C grep -aoE '(https?:)?//[^] "<>()\\]{1,160}|(src|href)="[^" ]{1,160}"' \
    | sed -E 's/^(src|href)="//; s/"$//' | LC_ALL=C sort -u | awk 'NR % 40 == 1')
