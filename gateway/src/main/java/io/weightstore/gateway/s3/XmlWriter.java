package io.weightstore.gateway.s3;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Writes the small XML documents S3 answers with. Text is escaped, and characters XML 1.0 cannot
 * carry at all (most control characters) as numeric references, as S3 does, so a document always
 * parses even when a key holds one.
 */
public final class XmlWriter {
    public static final String NAMESPACE = "http://s3.amazonaws.com/doc/2006-03-01/";

    private final StringBuilder xml = new StringBuilder(512).append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");

    /** Opens the document's root element, in S3's namespace when {@code namespaced}. */
    public XmlWriter root(String name, boolean namespaced) {
        xml.append('<').append(name);
        if (namespaced) {
            xml.append(" xmlns=\"").append(NAMESPACE).append('"');
        }
        xml.append('>');
        return this;
    }

    public XmlWriter open(String name) {
        xml.append('<').append(name).append('>');
        return this;
    }

    public XmlWriter close(String name) {
        xml.append("</").append(name).append('>');
        return this;
    }

    public XmlWriter element(String name, String text) {
        open(name);
        escape(text);
        return close(name);
    }

    public XmlWriter element(String name, long value) {
        return element(name, Long.toString(value));
    }

    public XmlWriter element(String name, boolean value) {
        return element(name, Boolean.toString(value));
    }

    public byte[] toBytes() {
        return xml.toString().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return xml.toString();
    }

    private void escape(String text) {
        text.codePoints().forEach(c -> {
            switch (c) {
                case '&' -> xml.append("&amp;");
                case '<' -> xml.append("&lt;");
                case '>' -> xml.append("&gt;");
                case '"' -> xml.append("&quot;");
                case '\'' -> xml.append("&apos;");
                default -> {
                    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f) {
                        xml.append("&#x").append(Integer.toHexString(c).toUpperCase(Locale.ROOT)).append(';');
                    } else {
                        xml.appendCodePoint(c);
                    }
                }
            }
        });
    }
}
