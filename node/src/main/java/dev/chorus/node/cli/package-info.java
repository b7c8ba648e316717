/** The {@code chorus} command line (picocli): one class per sub-command. */
package dev.chorus.node.cli;
