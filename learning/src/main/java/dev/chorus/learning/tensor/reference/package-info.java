/** The plain-Java reference backend: the oracle every other backend is tested against. */
package dev.chorus.learning.tensor.reference;
