package com.example.shop;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface ScopeDefaultTooLong {

  interface InternationalWireTransferSettlementCommandsForCorrespondentBanks {

    @IdempotentCommand
    String settleOutstandingWireTransfersWithCorrespondentBankAtEndOfBusinessDay(
        @IdempotencyKey String settlementId);
  }
}
