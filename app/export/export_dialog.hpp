// File > Export replay...: the range (whole run, current phase, from A to B),
// frames per second and length, the panels, the file (its name picks GIF, MP4
// or a PNG sequence); while the export runs, its progress and Cancel.
#pragma once

#include <string>

#include "app/core/app_state.hpp"
#include "app/export/export.hpp"

namespace ts::app {

class ExportDialog {
 public:
  // Draws the dialog while s.export_dialog_open or an export runs. Returns
  // true when Export is pressed (*req filled); *cancel when Cancel is pressed
  // during an export.
  bool draw(AppState& s, const Exporter& running, ExportRequest* req, bool* cancel);

 private:
  char path_[512] = "tilescope.gif";
  int range_ = 0;  // 0 whole run, 1 current phase, 2 from A to B
  int from_ = 0, to_ = 0;
  int fps_ = 10;
  float seconds_ = 10;
  int panels_ = 2;  // ExportPanels
  char title_[256] = "";
  bool was_open_ = false;
  std::string replace_;  // the files that exist, shown with "Replace?" (app/core/outputs.hpp)
  std::string refused_;  // why the file cannot be written (an input, a folder)
};

}  // namespace ts::app
