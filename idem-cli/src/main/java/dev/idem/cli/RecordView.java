package dev.idem.cli;

import dev.idem.runtime.IdemAdmin;
import dev.idem.runtime.IdempotencyRecord;
import java.util.LinkedHashMap;
import java.util.Map;

/** One record as inspect (and the other single-record commands) print it. */
final class RecordView {

  private RecordView() {}

  static Map<String, Object> of(IdemAdmin.StoredRecord stored) {
    IdempotencyRecord record = stored.record();
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("scope", record.scope());
    view.put("key", record.key());
    view.put("state", record.state().name());
    view.put("createdAt", Output.iso(record.createdAt()));
    view.put("expiresAt", Output.iso(record.expiresAt()));
    view.put("leaseUntil", Output.iso(record.leaseUntil()));
    view.put("owner", record.ownerToken());
    view.put("outcome", record.storedOutcome().name());
    boolean unknown = record.state() == IdempotencyRecord.State.OUTCOME_UNKNOWN;
    boolean failure = record.storedOutcome() == IdempotencyRecord.StoredOutcome.BUSINESS_FAILURE;
    boolean result = record.storedOutcome() == IdempotencyRecord.StoredOutcome.RESULT;
    view.put("result", result ? stored.storedJson() : null);
    view.put("failureType", record.failureType());
    view.put("failureArguments", failure ? stored.storedJson() : null);
    view.put("problem", unknown ? record.problem() : null);
    view.put("resultSize", record.resultSize());
    view.put("resultShape", stored.resultShape());
    view.put("fingerprint", stored.fingerprint());
    return view;
  }

  /** The names people read, in the order of {@link #of}. */
  static Map<String, Object> forPeople(Map<String, Object> view) {
    Map<String, Object> lines = new LinkedHashMap<>();
    lines.put("scope", view.get("scope"));
    lines.put("key", view.get("key"));
    lines.put("state", view.get("state"));
    lines.put("created", view.get("createdAt"));
    lines.put("expires", view.get("expiresAt"));
    lines.put("lease until", view.get("leaseUntil"));
    lines.put("owner", view.get("owner"));
    lines.put("outcome", view.get("outcome"));
    lines.put("result", view.get("result"));
    lines.put("failure", view.get("failureType") == null ? null
        : view.get("failureType") + " " + view.get("failureArguments"));
    lines.put("problem", view.get("problem"));
    lines.put("stored size", view.get("resultSize") + " characters");
    lines.put("result shape", view.get("resultShape"));
    lines.put("fingerprint", view.get("fingerprint"));
    return lines;
  }
}
