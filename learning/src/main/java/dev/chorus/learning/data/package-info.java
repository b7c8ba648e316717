/**
 * Loading a node's own data into a {@link dev.chorus.learning.data.Dataset}: CSV files driven by a
 * {@link dev.chorus.learning.data.CsvSchema} (RFC 4180 parsing, one-hot encoding, missing values
 * dropped or imputed from this node's data only), IDX image files ({@link
 * dev.chorus.learning.data.IdxLoader}), z-score {@link dev.chorus.learning.data.Standardizer}
 * fitted on a training split, seeded stratified splits and k-fold assignments, and the atomic
 * file writes that every output of this module goes through.
 *
 * <p>Bad input raises a {@link dev.chorus.learning.data.DataException} whose one-line message
 * names the file, line and column. No tensor, model or network code here.
 */
package dev.chorus.learning.data;
