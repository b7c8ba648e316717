/**
 * Local training: the tensor SPI and its CPU backends, models over one flat parameter vector,
 * losses, optimizers, data loaders, partitioners, the trainer and evaluation. No networking.
 */
package dev.chorus.learning;
