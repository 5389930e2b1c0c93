// The floor of a --pipe handler for bench/fill_and_drain.sh: answers "ok" to each task line and does
// nothing else (no JSON parsing). Its answers are buffered and written once it has answered every line it
// has read, before it waits for more: one write per batch of lines, not one per task.
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void) {
    static char in[1 << 16], out[1 << 16];
    size_t kept = 0, answers = 0;
    for (;;) {
        const ssize_t got = read(0, in + kept, sizeof in - kept);
        if (got <= 0) return 0;
        const char* line = in;
        const char* end = in + kept + got;
        const char* newline;
        while ((newline = memchr(line, '\n', (size_t)(end - line))) != NULL) {
            memcpy(out + 3 * answers++, "ok\n", 3);
            if (3 * answers == sizeof out - sizeof out % 3) {
                if (write(1, out, 3 * answers) < 0) return 1;
                answers = 0;
            }
            line = newline + 1;
        }
        kept = (size_t)(end - line);
        if (kept == sizeof in) {  // a line longer than the buffer: its start is dropped, its answer still comes
            kept = 0;
        }
        memmove(in, line, kept);
        if (answers > 0 && write(1, out, 3 * answers) < 0) return 1;
        answers = 0;
    }
}
