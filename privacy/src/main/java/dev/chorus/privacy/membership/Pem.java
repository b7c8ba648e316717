package dev.chorus.privacy.membership;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.CRLException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemReader;
import org.bouncycastle.util.io.pem.PemWriter;

/**
 * Certificates and CRLs as PEM text and DER bytes, and the files that hold them. Every error is one line that names
 * the file and the problem. Files are read whole up to {@value #MAX_FILE_BYTES} bytes, so that a wrong path to a
 * large file fails at once instead of filling the heap.
 */
public final class Pem {

    /** The largest PEM file read: a CRL of about 100,000 entries fits. */
    static final long MAX_FILE_BYTES = 8L << 20;

    static final String CERTIFICATE = "CERTIFICATE";
    static final String CRL = "X509 CRL";
    static final String ENCRYPTED_PRIVATE_KEY = "ENCRYPTED PRIVATE KEY";

    private Pem() {}

    /** Every certificate of a PEM file (at least one) or the one certificate of a DER file. */
    public static List<X509Certificate> readCertificates(Path file) {
        List<X509Certificate> out = new ArrayList<>();
        byte[] bytes = read(file);
        List<PemObject> blocks = blocks(file, bytes);
        if (blocks.isEmpty()) {
            try {
                return List.of(certificateFromDer(bytes));
            } catch (MembershipException e) {
                throw new MembershipException(file + ": not a certificate (no -----BEGIN CERTIFICATE----- line)");
            }
        }
        for (PemObject b : blocks) {
            if (!b.getType().equals(CERTIFICATE)) {
                throw new MembershipException(file + ": holds a " + b.getType() + " where a CERTIFICATE was expected");
            }
            try {
                out.add(certificateFromDer(b.getContent()));
            } catch (MembershipException e) {
                throw new MembershipException(file + ": " + e.getMessage(), e);
            }
        }
        return List.copyOf(out);
    }

    /** The one CRL of a PEM or DER file. */
    public static X509CRL readCrl(Path file) {
        byte[] bytes = read(file);
        List<PemObject> blocks = blocks(file, bytes);
        if (blocks.isEmpty()) {
            try {
                return crlFromDer(bytes);
            } catch (MembershipException e) {
                throw new MembershipException(file + ": not a CRL (no -----BEGIN X509 CRL----- line)");
            }
        }
        if (blocks.size() != 1 || !blocks.getFirst().getType().equals(CRL)) {
            throw new MembershipException(file + ": expected one X509 CRL, found "
                    + blocks.stream().map(PemObject::getType).toList());
        }
        try {
            return crlFromDer(blocks.getFirst().getContent());
        } catch (MembershipException e) {
            throw new MembershipException(file + ": " + e.getMessage(), e);
        }
    }

    /** The PEM text of a certificate, ending with a newline. */
    public static String certificate(X509Certificate c) {
        try {
            return text(CERTIFICATE, c.getEncoded());
        } catch (CertificateEncodingException e) {
            throw new MembershipException("cannot encode the certificate " + c.getSubjectX500Principal(), e);
        }
    }

    /** The PEM text of a CRL, ending with a newline. */
    public static String crl(X509CRL c) {
        try {
            return text(CRL, c.getEncoded());
        } catch (CRLException e) {
            throw new MembershipException("cannot encode the CRL of " + c.getIssuerX500Principal(), e);
        }
    }

    public static X509Certificate certificateFromDer(byte[] der) {
        try {
            return (X509Certificate) factory().generateCertificate(new ByteArrayInputStream(der));
        } catch (CertificateException | RuntimeException e) {
            throw new MembershipException("not a DER X.509 certificate (" + oneLine(e) + ")", e);
        }
    }

    public static X509CRL crlFromDer(byte[] der) {
        try {
            X509CRL crl = (X509CRL) factory().generateCRL(new ByteArrayInputStream(der));
            if (crl == null) {
                throw new CRLException("no CRL in the input");
            }
            return crl;
        } catch (CRLException | RuntimeException e) {
            throw new MembershipException("not a DER X.509 CRL (" + oneLine(e) + ")", e);
        }
    }

    /**
     * Replaces {@code file} with {@code text} in one step: readers see the old content or the new, never a part. The
     * file gets mode 0644 where POSIX permissions exist (certificates and CRLs are public).
     */
    public static void writeAtomically(Path file, String text) {
        Path tmp = temporary(file, text);
        try {
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new MembershipException("cannot write " + file + ": " + reason(e), e);
        } finally {
            deleteQuietly(tmp);
        }
    }

    /**
     * Writes {@code text} to a new file, whole or not at all, and refuses to replace an existing one (the check and
     * the creation are one step: a hard link fails when the name exists). Mode 0644 as for
     * {@link #writeAtomically}.
     */
    public static void writeNew(Path file, String text) {
        if (Files.exists(file)) {
            throw new MembershipException(file + " already exists; refusing to overwrite it");
        }
        Path tmp = temporary(file, text);
        try {
            try {
                Files.createLink(file, tmp);
            } catch (UnsupportedOperationException e) {
                Files.move(tmp, file);
            }
        } catch (FileAlreadyExistsException e) {
            throw new MembershipException(file + " already exists; refusing to overwrite it", e);
        } catch (IOException e) {
            throw new MembershipException("cannot write " + file + ": " + reason(e), e);
        } finally {
            deleteQuietly(tmp);
        }
    }

    /** The content in a new hidden file next to {@code file}, flushed to disk, mode 0644. */
    private static Path temporary(Path file, String text) {
        Path dir = file.toAbsolutePath().getParent();
        try {
            if (Files.exists(dir) && !Files.isDirectory(dir)) {
                throw new MembershipException("cannot write " + file + ": " + dir + " is a file, not a directory");
            }
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
            try (OutputStream out = Files.newOutputStream(tmp, StandardOpenOption.WRITE, StandardOpenOption.SYNC)) {
                out.write(text.getBytes(StandardCharsets.US_ASCII));
            }
            if (Files.getFileStore(tmp).supportsFileAttributeView("posix")) {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
            }
            return tmp;
        } catch (IOException e) {
            throw new MembershipException("cannot write " + file + ": " + reason(e), e);
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // a leftover hidden temporary file is harmless; the error that matters was already reported
        }
    }

    /** The bytes of a file of at most {@value #MAX_FILE_BYTES} bytes. */
    static byte[] read(Path file) {
        if (Files.isDirectory(file)) {
            throw new MembershipException(file + " is a directory, not a file");
        }
        try {
            long size = Files.size(file);
            if (size > MAX_FILE_BYTES) {
                throw new MembershipException(file + " is " + size + " bytes long, too large for a certificate or"
                        + " CRL file (at most " + MAX_FILE_BYTES + ")");
            }
            try (InputStream in = Files.newInputStream(file)) {
                return in.readNBytes((int) MAX_FILE_BYTES + 1);
            }
        } catch (NoSuchFileException e) {
            throw new MembershipException(file + " does not exist", e);
        } catch (IOException e) {
            throw new MembershipException("cannot read " + file + ": " + reason(e), e);
        }
    }

    /** The PEM blocks of a file's bytes; none when it holds no {@code -----BEGIN} line (it may be DER). */
    static List<PemObject> blocks(Path file, byte[] bytes) {
        if (!looksLikePem(bytes)) {
            return List.of();
        }
        List<PemObject> out = new ArrayList<>();
        try (PemReader r = new PemReader(new StringReader(new String(bytes, StandardCharsets.ISO_8859_1)))) {
            for (PemObject o = r.readPemObject(); o != null; o = r.readPemObject()) {
                out.add(o);
            }
        } catch (IOException | RuntimeException e) {
            throw new MembershipException(file + ": corrupt PEM (" + oneLine(e) + ")", e);
        }
        if (out.isEmpty()) {
            throw new MembershipException(file + ": corrupt PEM (a -----BEGIN line without a block)");
        }
        return out;
    }

    private static boolean looksLikePem(byte[] bytes) {
        return new String(bytes, StandardCharsets.ISO_8859_1).contains("-----BEGIN ");
    }

    static String text(String type, byte[] der) {
        StringWriter s = new StringWriter();
        try (PemWriter w = new PemWriter(s)) {
            w.writeObject(new PemObject(type, der));
        } catch (IOException e) {
            throw new MembershipException("cannot write PEM: " + e.getMessage(), e);
        }
        return s.toString();
    }

    private static CertificateFactory factory() {
        try {
            return CertificateFactory.getInstance("X.509");
        } catch (CertificateException e) {
            throw new IllegalStateException("the JDK has no X.509 certificate factory", e);
        }
    }

    /** An exception's message on one line, without Java class names. */
    static String oneLine(Throwable e) {
        String m = e.getMessage();
        if (m == null || m.isBlank()) {
            return e.getClass().getSimpleName();
        }
        return m.strip().replaceAll("\\s*[\\r\\n]+\\s*", "; ");
    }

    /** Why a file operation failed, in a few lower-case words. */
    static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileAlreadyExistsException) {
            return "a file of that name exists";
        }
        String text = e instanceof FileSystemException fs ? fs.getReason() : e.getMessage();
        if (text == null || text.isBlank()) {
            return "input/output error";
        }
        return text.substring(0, 1).toLowerCase(Locale.ROOT) + text.substring(1);
    }
}
