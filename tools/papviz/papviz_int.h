/*
 * papviz_int.h - papviz's commands that live in files of their own
 * (the files of tools/papviz/), called from tools/papviz.c's main.
 */
#ifndef PAPVIZ_INT_H
#define PAPVIZ_INT_H

/* papviz timeline: argv[0] is "timeline"; returns the exit status. */
int papviz_timeline(int argc, char **argv);

#endif /* PAPVIZ_INT_H */
