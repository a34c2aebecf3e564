/*
 * replay.c - runs a fuzz target's LLVMFuzzerTestOneInput on files, without
 * libFuzzer: build/tests/fuzz_NAME FILE|DIR...  (a directory: each regular
 * file under it, in name order, subdirectories included).  This is how the committed corpora
 * (tests/fuzz/NAME/, crashes found once included) are replayed by every
 * build, plain, ASan and TSan alike (tests/fuzz/replay.sh).  Prints one line
 * per file run; exits 0 unless a file cannot be read (a bug is a crash).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fz_replay_file(const char *path)
{
    FILE          *fp = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t         n = 0, cap = 0, got;

    if (fp == NULL) {
        perror(path);
        return 1;
    }
    do {
        if (n == cap) {
            unsigned char *p = realloc(buf, cap = cap ? 2 * cap : 65536);
            if (p == NULL) {
                perror("replay");
                exit(2);
            }
            buf = p;
        }
        got = fread(buf + n, 1, cap - n, fp);
        n += got;
    } while (got > 0);
    fclose(fp);
    printf("replay %s (%zu bytes)\n", path, n);
    fflush(stdout);
    /* An exact-size copy, so that ASan sees a read past the end. */
    unsigned char *exact = malloc(n ? n : 1);
    if (exact == NULL) {
        perror("replay");
        exit(2);
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

/* Each regular file under dir, in name order, subdirectories included. */
static int fz_replay_dir(const char *dir, int *files)
{
    struct dirent **ents;
    int             n = scandir(dir, &ents, NULL, alphasort), bad = 0;

    if (n < 0) {
        perror(dir);
        return 1;
    }
    for (int k = 0; k < n; k++) {
        struct stat st;
        char       *path = NULL;

        if (ents[k]->d_name[0] != '.' &&
            asprintf(&path, "%s/%s", dir, ents[k]->d_name) > 0 && stat(path, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                bad |= fz_replay_dir(path, files);
            } else if (S_ISREG(st.st_mode)) {
                bad |= fz_replay_file(path);
                (*files)++;
            }
        }
        free(path);
        free(ents[k]);
    }
    free(ents);
    return bad;
}

int main(int argc, char **argv)
{
    int bad = 0, files = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        struct stat st;

        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            bad |= fz_replay_dir(argv[i], &files);
        } else {
            bad |= fz_replay_file(argv[i]);
            files++;
        }
    }
    printf("replayed %d files\n", files);
    return bad || files == 0;
}
