package dev.idem.http;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * A response decided by idem-http or rendered by the application: status, header fields and body. Immutable; an
 * adapter writes it to the server's response.
 */
public final class HttpReply {

  private static final String[] NO_HEADERS = {};

  private final int status;
  /**
   * Names and values in turn, in the order they were set: a reply gets a header or three on its way out (a replay:
   * Location, Idempotency-Key-Expires, Idempotent-Replayed), and copying an array of a few strings for each costs a
   * fraction of copying a LinkedHashMap.
   */
  private final String[] headers;
  private final byte[] body;

  private HttpReply(int status, String[] headers, byte[] body) {
    this.status = status;
    this.headers = headers;
    this.body = body;
  }

  /**
   * @param status the status code
   * @param contentType the body's media type, or null for no body
   * @param body the body (copied), empty for none
   * @return the reply
   */
  public static HttpReply of(int status, String contentType, byte[] body) {
    if (status < 100 || status > 599) {
      throw new IllegalArgumentException("status must be 100 to 599, got " + status);
    }
    String[] headers = contentType == null ? NO_HEADERS : new String[] {"Content-Type", contentType};
    return new HttpReply(status, headers, body.clone());
  }

  /**
   * @param status the status code
   * @param json a JSON document
   * @return the reply, as {@code application/json}
   */
  public static HttpReply json(int status, String json) {
    return of(status, "application/json", json.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * @param name a header field name
   * @param value its value
   * @return a copy of this reply with the field set (replacing one of the same name)
   */
  public HttpReply withHeader(String name, String value) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(value, "value");
    String[] copy = new String[headers.length + 2];
    int length = 0;
    for (int i = 0; i < headers.length; i += 2) {
      if (!headers[i].equalsIgnoreCase(name)) {
        copy[length++] = headers[i];
        copy[length++] = headers[i + 1];
      }
    }
    copy[length++] = name;
    copy[length++] = value;
    return new HttpReply(status, length == copy.length ? copy : java.util.Arrays.copyOf(copy, length), body);
  }

  /** @return the status code */
  public int status() {
    return status;
  }

  /** @return the header fields, in the order they were set (a new unmodifiable map per call) */
  public Map<String, String> headers() {
    Map<String, String> map = new LinkedHashMap<>();
    forEachHeader(map::put);
    return Collections.unmodifiableMap(map);
  }

  /**
   * Gives each header field to {@code action}, in the order they were set: what an adapter writing the reply calls,
   * without building {@link #headers()}' map.
   *
   * @param action receives each name and value
   */
  public void forEachHeader(BiConsumer<String, String> action) {
    for (int i = 0; i < headers.length; i += 2) {
      action.accept(headers[i], headers[i + 1]);
    }
  }

  /**
   * @param name a header field name, matched case-insensitively
   * @return its value, or null
   */
  public String header(String name) {
    for (int i = 0; i < headers.length; i += 2) {
      if (headers[i].equalsIgnoreCase(name)) {
        return headers[i + 1];
      }
    }
    return null;
  }

  /** The characters of the header fields' names and values: what a cached reply holds besides its body. */
  int headerChars() {
    int chars = 0;
    for (String field : headers) {
      chars += field.length();
    }
    return chars;
  }

  /** @return a copy of the body */
  public byte[] body() {
    return body.clone();
  }

  /** @return the body's length in bytes, without copying it */
  public int bodyLength() {
    return body.length;
  }

  /**
   * Writes the body to {@code out}, without copying it: what an adapter writing the reply calls.
   *
   * @param out the response's body stream
   * @throws java.io.IOException if the client went away
   */
  public void writeBody(java.io.OutputStream out) throws java.io.IOException {
    out.write(body);
  }

  /** @return the body as UTF-8 text */
  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "HttpReply[" + status + " " + headers() + " " + bodyText() + "]";
  }
}
