#!/usr/bin/env bash
# Recreates the CSV files of the quality suite (bench/data/*.csv, listed in bench/data/suite.tsv and, for the
# held-out tables, bench/data/holdout.tsv; see docs/data.md, "The quality suite") from Debian bookworm packages, and
# prints each file's SHA-256.
#
#   scripts/convert-suite-data.sh [--install-r] [OUT_DIR]
#
# OUT_DIR defaults to bench/data. Run by hand on Debian bookworm (or a derivative with the same package
# versions), never by CI: it downloads packages.
#
# Needs: apt-get with current package lists (apt-get update), dpkg-deb, and Rscript (Debian r-base-core): R data
# sets are stored in R's lazy-load format, which only R reads. Without Rscript the script stops and says so;
# --install-r installs r-base-core first (as root, with apt-get).
#
# The packages are pinned to exact versions, so that the same bytes come out on every run: a newer package
# could change the data, and then the script fails at the download instead of writing other files. The .deb
# files are unpacked into a temporary directory (dpkg-deb -x, nothing is installed) that is removed on exit.
# The conversion itself (R, below) sorts nothing and samples nothing: rows stay in the packages' order.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

install_r=0
if [ "${1:-}" = "--install-r" ]; then
    install_r=1
    shift
fi
out="${1:-$root/bench/data}"

packages=(
    r-cran-survival=3.5-3-1
    r-cran-mass=7.3-58.2-1
    r-cran-mlbench=2.1-3-1
    r-cran-kmsurv=0.1-5-2+b1
    weka=3.6.14-3
    liblinear-tools=2.3.0+dfsg-5
)

if ! command -v Rscript > /dev/null; then
    if [ "$install_r" = 1 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends r-base-core
    else
        echo "$0: Rscript not found. It reads the R data sets: install Debian's r-base-core" >&2
        echo "    (apt-get install r-base-core), or run this script as root with --install-r." >&2
        exit 2
    fi
fi
for tool in apt-get dpkg-deb sha256sum; do
    command -v "$tool" > /dev/null || { echo "$0: $tool not found (this script needs Debian's apt)" >&2; exit 2; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debs" "$work/root" "$out"
out="$(cd "$out" && pwd)"

# As root, apt-get download would otherwise warn that its sandbox user cannot write the temporary directory.
if ! (cd "$work/debs" && apt-get -q -o APT::Sandbox::User=root download "${packages[@]}" > /dev/null); then
    echo "$0: apt-get download failed: run apt-get update; the versions pinned above are those of bookworm" >&2
    exit 1
fi
for deb in "$work"/debs/*.deb; do
    dpkg-deb -x "$deb" "$work/root"
done

cat > "$work/convert.R" <<'R'
# Writes one CSV per data set: header row, comma separated, strings quoted, missing values empty.
args <- commandArgs(trailingOnly = TRUE)
unpacked <- args[1]
out <- args[2]

# The C locale and R's default number printing (write.csv writes up to 15 significant digits), so that the
# same data give the same bytes on every machine with bookworm's R (4.2.2).
invisible(Sys.setlocale("LC_ALL", "C"))
options(scipen = 0, digits = 7, OutDec = ".")

write <- function(data, name) {
    write.csv(data, file.path(out, paste0(name, ".csv")), row.names = FALSE, na = "", fileEncoding = "UTF-8")
}

# A package's data sets in R's lazy-load database (data/Rdata.rdb), read without installing the package.
lazy <- function(dir) {
    env <- new.env()
    lazyLoad(file.path(unpacked, dir, "data", "Rdata"), envir = env)
    env
}

survival <- lazy("usr/lib/R/library/survival")
mass <- lazy("usr/lib/R/library/MASS")

# colon: two rows per patient, one per event type (1 recurrence, 2 death); the death rows are one per patient.
colon <- survival$colon
write(colon[colon$etype == 2, ], "colon")
write(survival$pbc, "pbc")
write(survival$gbsg, "gbsg")
write(survival$rotterdam, "rotterdam")
write(survival$mgus2, "mgus2")
write(mass$Aids2, "aids2")

pima <- new.env()
load(file.path(unpacked, "usr/lib/R/site-library/mlbench/data/PimaIndiansDiabetes2.rda"), envir = pima)
write(pima$PimaIndiansDiabetes2, "pima")

# KMsurv keeps its data as whitespace-separated text; R's data() reads it with read.table(header = TRUE).
std <- read.table(gzfile(file.path(unpacked, "usr/lib/R/site-library/KMsurv/data/std.txt.gz")), header = TRUE)
write(std, "std")

# ARFF: the lines after @data, values in single quotes, ? for missing; comment lines start with %.
arff <- readLines(file.path(unpacked, "usr/share/doc/weka/examples/breast-cancer.arff"))
attributes <- sub("^@attribute\\s+'?([^' ]+)'?\\s.*$", "\\1", grep("^@attribute", arff, value = TRUE))
rows <- arff[(grep("^@data", arff) + 1):length(arff)]
rows <- rows[!grepl("^%", rows) & nzchar(trimws(rows))]
breast <- read.csv(text = rows, header = FALSE, quote = "'", na.strings = "?", colClasses = "character",
                   col.names = attributes, check.names = FALSE, strip.white = TRUE)
write(breast, "breast-cancer")

# LIBSVM format: label, then index:value pairs; an absent index is the value 0 (a sparse format, not missing).
# The 13 features are those of the Statlog (Heart) data set, in its order, scaled to [-1, 1] by LIBSVM;
# label +1 is presence of heart disease (120 rows), -1 absence (150 rows), as in Statlog's 2 and 1.
lines <- readLines(file.path(unpacked, "usr/share/doc/liblinear-tools/examples/heart_scale"))
names <- c("age", "sex", "chest_pain", "resting_bp", "cholesterol", "fasting_sugar", "resting_ecg",
           "max_heart_rate", "exercise_angina", "oldpeak", "slope", "vessels", "thal")
heart <- matrix("0", nrow = length(lines), ncol = length(names), dimnames = list(NULL, names))
disease <- integer(length(lines))
for (i in seq_along(lines)) {
    fields <- strsplit(trimws(lines[i]), " +")[[1]]
    disease[i] <- if (fields[1] == "+1") 1L else if (fields[1] == "-1") 0L else stop("label ", fields[1])
    pairs <- strsplit(fields[-1], ":", fixed = TRUE)
    for (p in pairs) heart[i, as.integer(p[1])] <- p[2]
}
# LIBSVM wrote at most 6 significant digits, which R prints back unchanged (it prints up to 15).
heart <- as.data.frame(heart, stringsAsFactors = FALSE)
heart[] <- lapply(heart, function(column) type.convert(column, as.is = TRUE))
heart$disease <- disease
write(heart, "heart")

# The held-out tables (bench/data/holdout.tsv): never used to choose a default, run to check that the defaults hold
# on data they were not chosen on. Written as the packages hold them; what the suite leaves out of each (leaking
# columns, identifiers) is in holdout.tsv.
write(mass$biopsy, "biopsy")
write(mass$birthwt, "birthwt")
write(mass$Melanoma, "melanoma")
write(survival$nafld1, "nafld1")
write(survival$retinopathy, "retinopathy")
pneumon <- read.table(gzfile(file.path(unpacked, "usr/lib/R/site-library/KMsurv/data/pneumon.txt.gz")),
                      header = TRUE)
write(pneumon, "pneumon")
R

Rscript --vanilla "$work/convert.R" "$work/root" "$out"

# The digests, each beside the one bench/data/suite.tsv records (for any OUT_DIR: a check of a fresh run).
check() {
    local manifest="$1"
    shift
    for name in "$@"; do
        local file="$out/$name.csv" expected="" note
        local sum="$(sha256sum "$file" | cut -d' ' -f1)"
        if [ -f "$manifest" ]; then
            expected="$(awk -F'\t' -v n="$name" '$1 == n { print $7 }' "$manifest")"
        fi
        if [ -z "$expected" ]; then
            note="(not in $manifest)"
        elif [ "$expected" = "$sum" ]; then
            note="matches $(basename "$manifest")"
        else
            note="DIFFERS from $(basename "$manifest") ($expected)"
        fi
        echo "$sum  $name.csv  $note"
    done
}
check "$root/bench/data/suite.tsv" aids2 breast-cancer colon gbsg heart mgus2 pbc pima rotterdam std
check "$root/bench/data/holdout.tsv" biopsy birthwt melanoma nafld1 pneumon retinopathy
