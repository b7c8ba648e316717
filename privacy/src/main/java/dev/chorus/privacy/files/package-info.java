/**
 * Owner-only creation of the files and directories that hold a node's state and secrets (mode 0600 and 0700, set
 * when they are created). JDK only; knows nothing of what the files hold.
 */
package dev.chorus.privacy.files;
