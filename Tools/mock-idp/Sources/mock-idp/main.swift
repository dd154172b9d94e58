import Foundation

FileHandle.standardError.write(Data("mock-idp: not built yet (identity issue)\n".utf8))
exit(1)
