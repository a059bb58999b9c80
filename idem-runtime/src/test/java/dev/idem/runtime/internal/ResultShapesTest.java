package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Results checked against shapes as the processor writes them into the manifest. */
class ResultShapesTest {

  private static void fits(String shape, String json) {
    assertDoesNotThrow(() -> ResultShapes.check(shape, json), shape + " / " + json);
  }

  private static void refused(String shape, String json, String expected) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ResultShapes.check(shape, json),
        shape + " / " + json);
    assertTrue(e.getMessage().contains(expected), e.getMessage() + " should contain " + expected);
  }

  private static final String RECEIPT = "shop.Receipt{amountCents:long,currency:java.util.Currency,"
      + "lines:java.util.List<shop.Line>{},status:enum shop.Status[PAID,VOID],paidAt:java.time.Instant}";

  @Test
  void valuesAndPrimitives() {
    fits("java.lang.String", "\"ch_1\"");
    fits("java.lang.String", "null");
    refused("java.lang.String", "12", "result must be a JSON string");
    fits("long", "12");
    refused("long", "null", "result is null, but it is a long");
    refused("int", "2147483648", "result must be between -2147483648 and 2147483647");
    refused("int", "1.5", "an integral JSON number");
    refused("long", "\"12\"", "an integral JSON number (long), got \"12\"");
    fits("java.math.BigDecimal", "12.50");
    fits("java.time.Instant", "\"2026-12-02T04:30:00Z\"");
    refused("java.time.LocalDate", "\"02.12.2026\"", "a date like 2026-12-02");
    fits("java.util.UUID", "\"8e03978e-40d5-43e8-bc93-6894a57f9324\"");
    refused("java.util.UUID", "\"nope\"", "a UUID");
    fits("boolean", "true");
    refused("char", "\"ab\"", "a string of one character");
  }

  @Test
  void objectsNeedExactlyTheirProperties() {
    String shape = "shop.Receipt{amountCents:long,id:java.lang.String,status:enum shop.Status[PAID,VOID]}";
    fits(shape, "{\"id\":\"r1\",\"amountCents\":5,\"status\":\"PAID\"}");
    fits(shape, "null");
    refused(shape, "{\"id\":\"r1\",\"amountCent\":5,\"status\":\"PAID\"}",
        "result.amountCent is not a property of shop.Receipt (its properties: amountCents, id, status)");
    refused(shape, "{\"id\":\"r1\",\"status\":\"PAID\"}", "result.amountCents is missing");
    refused(shape, "{\"id\":\"r1\",\"amountCents\":5,\"status\":\"REFUNDED\"}",
        "result.status must be one of PAID, VOID (enum shop.Status), got \"REFUNDED\"");
    refused(shape, "[1]", "result must be a JSON object (shop.Receipt)");
    refused(shape, "{\"id\":\"r1\",\"amountCents\":5,\"status\":\"PAID\"} trailing", "the result is not JSON");
    refused(shape, "{\"id\":\"a\",\"id\":\"b\",\"amountCents\":5,\"status\":\"PAID\"}", "the result is not JSON");
  }

  @Test
  void containersCheckEveryElement() {
    String shape = "shop.Order{lines:List<shop.Line{price:java.math.BigDecimal,sku:java.lang.String}>,"
        + "tags:Set<java.lang.String>,counts:Map<java.lang.Integer,long>,note:Optional<java.lang.String>,"
        + "scores:int[]}";
    String good = "{\"lines\":[{\"sku\":\"a\",\"price\":1.5}],\"tags\":[\"x\"],\"counts\":{\"1\":2},"
        + "\"note\":null,\"scores\":[1,2]}";
    fits(shape, good);
    refused(shape, good.replace("1.5", "\"1.5\""), "result.lines[0].price must be a JSON number");
    refused(shape, good.replace("{\"1\":2}", "{\"one\":2}"), "result.counts{one}(key)");
    refused(shape, good.replace("[1,2]", "[1,null]"), "result.scores[1] is null, but it is a int");
    refused(shape, good.replace("[\"x\"]", "\"x\""), "result.tags must be a JSON array (Set<java.lang.String>)");
    // Jackson writes byte[] as base64 text and char[] as a string.
    fits("shop.File{data:byte[],initials:char[]}", "{\"data\":\"AQID\",\"initials\":\"ab\"}");
    refused("shop.File{data:byte[],initials:char[]}", "{\"data\":[1,2],\"initials\":\"ab\"}",
        "result.data must be base64 text (byte[])");
  }

  @Test
  void sealedTypesNeedOneOfTheirSubtypes() {
    String shape = "sealed shop.Outcome[shop.Outcome.Paid{id:java.lang.String}|shop.Outcome.Refused{reason:"
        + "java.lang.String}]";
    fits(shape, "{\"@type\":\"shop.Outcome$Paid\",\"id\":\"p\"}");
    fits(shape, "{\"@type\":\"shop.Outcome.Refused\",\"reason\":\"r\"}");
    refused(shape, "{\"id\":\"p\"}", "must name its class in \"@type\"");
    refused(shape, "{\"@type\":\"shop.Outcome$Lost\"}", "result.@type must be one of shop.Outcome.Paid,"
        + " shop.Outcome.Refused");
    refused(shape, "{\"@type\":\"shop.Outcome$Paid\",\"reason\":\"r\"}", "result<Paid>.reason is not a property");
  }

  @Test
  void recursiveAndGenericTypes() {
    String tree = "shop.Node{children:List<shop.Node>,name:java.lang.String}";
    fits(tree, "{\"name\":\"a\",\"children\":[{\"name\":\"b\",\"children\":[]}]}");
    refused(tree, "{\"name\":\"a\",\"children\":[{\"name\":\"b\"}]}", "result.children[0].children is missing");
    String page = "shop.Page<shop.Item>{items:List<shop.Item{id:long}>,next:java.lang.String}";
    fits(page, "{\"items\":[{\"id\":1}],\"next\":null}");
    refused(page, "{\"items\":[{\"id\":\"1\"}],\"next\":null}", "result.items[0].id must be an integral");
  }

  @Test
  void voidCommandsTakeNoResult() {
    fits("void", null);
    refused("void", "null", "the command returns nothing");
    refused("java.lang.String", null, "give its result as JSON");
  }

  @Test
  void anUnknownTypeNameIsAcceptedAndAMalformedShapeIsReported() {
    fits("java.util.concurrent.atomic.AtomicLong", "5");
    refused("shop.Receipt{id:java.lang.String", "{}", "the manifest's result shape cannot be read");
    assertTrue(RECEIPT.contains("shop.Line"));
  }
}
