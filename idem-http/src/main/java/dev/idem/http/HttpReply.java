package dev.idem.http;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A response decided by idem-http or rendered by the application: status, header fields and body. Immutable; an
 * adapter writes it to the server's response.
 */
public final class HttpReply {

  private final int status;
  private final Map<String, String> headers;
  private final byte[] body;

  private HttpReply(int status, Map<String, String> headers, byte[] body) {
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
    Map<String, String> headers = new LinkedHashMap<>();
    if (contentType != null) {
      headers.put("Content-Type", contentType);
    }
    return new HttpReply(status, Collections.unmodifiableMap(headers), body.clone());
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
    Map<String, String> copy = new LinkedHashMap<>(headers);
    copy.keySet().removeIf(existing -> existing.equalsIgnoreCase(name));
    copy.put(name, value);
    return new HttpReply(status, Collections.unmodifiableMap(copy), body);
  }

  /** @return the status code */
  public int status() {
    return status;
  }

  /** @return the header fields, in the order they were set */
  public Map<String, String> headers() {
    return headers;
  }

  /**
   * @param name a header field name, matched case-insensitively
   * @return its value, or null
   */
  public String header(String name) {
    for (Map.Entry<String, String> header : headers.entrySet()) {
      if (header.getKey().equalsIgnoreCase(name)) {
        return header.getValue();
      }
    }
    return null;
  }

  /** @return a copy of the body */
  public byte[] body() {
    return body.clone();
  }

  /** @return the body as UTF-8 text */
  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "HttpReply[" + status + " " + headers + " " + bodyText() + "]";
  }
}
